import HeraldDomain
import Foundation
import Gateway
import HTTPTypes
import HeraldControl
import Hummingbird
import JSONKit
import ServiceKit
import ServiceLifecycle

/// Serves the Herald Console under `/console`: its pages (one shell, drawn by ES modules;
/// every page's path answers the shell, so links are stable), its assets, the public API
/// under `/console/api/v1/…` acting with the `console` scope, and the console's own API
/// (sign-in, system state, dead letters, samples). The API key travels only in the
/// `Authorization` header, never in a URL.
public enum ConsoleRoutes {
    public static func add(to router: Router<HeraldRequestContext>, console: Console) {
        let group = router.group("/console").add(middleware: ConsoleHeaders<HeraldRequestContext>())
        for path in ["/", "/:page", "/:page/:id"] {
            group.get(RouterPath(path)) { _, _ -> Response in
                guard let shell = ConsoleAssets.shared.shell else { return problem(GatewayError(404, "Not Found", "the console's files are missing")) }
                return file(shell)
            }
        }
        group.get("/assets/:file") { _, context -> Response in
            guard let name = context.parameters.get("file"), let asset = ConsoleAssets.shared.files[name] else {
                return problem(GatewayError(404, "Not Found", "no such console file"))
            }
            return file(asset)
        }
        GatewayRoutes.addEndpoints(to: group, gateway: console.gateway, prefix: "/api", viaConsole: true)

        group.post("/api/session") { request, _ -> Response in
            await answer {
                let body = try await object(request)
                guard let app = body["app"]?.stringValue, !app.isEmpty else { throw GatewayError(400, "Invalid request", "app: the app to sign in to is required", field: "app") }
                return try console.signIn(request.headers[.authorization], app: app)
            }
        }
        group.get("/api/apps/:app/system") { request, context -> Response in
            await answer { try await console.system(request.headers[.authorization], app: context.parameters.get("app") ?? "") }
        }
        group.get("/api/apps/:app/dead-letters") { request, context -> Response in
            await answer { try await console.deadLetters(request.headers[.authorization], app: context.parameters.get("app") ?? "") }
        }
        group.get("/api/apps/:app/dead-letters/:id") { request, context -> Response in
            await answer {
                let id = context.parameters.get("id") ?? ""
                return try await console.deadLetter(request.headers[.authorization], app: context.parameters.get("app") ?? "", id: id.removingPercentEncoding ?? id)
            }
        }
        group.post("/api/apps/:app/dead-letters/replay") { request, context -> Response in
            await answer {
                let body = try await object(request)
                return try await console.replay(request.headers[.authorization], app: context.parameters.get("app") ?? "", ids: try ids(body))
            }
        }
        group.post("/api/apps/:app/dead-letters/purge") { request, context -> Response in
            await answer {
                let body = try await object(request)
                return try await console.purge(
                    request.headers[.authorization], app: context.parameters.get("app") ?? "", ids: try ids(body), confirm: body["confirm"]?.boolValue ?? false)
            }
        }
        group.get("/api/apps/:app/samples") { request, context -> Response in
            await answer { try console.samples(request.headers[.authorization], app: context.parameters.get("app") ?? "") }
        }
        group.post("/api/apps/:app/samples/:integration") { request, context -> Response in
            await answer {
                let body = try await object(request)
                let target = SampleTarget(
                    pushId: body["pushId"]?.stringValue, user: body["user"]?.stringValue, sponsee: body["sponsee"]?.stringValue, address: body["address"]?.stringValue)
                return try console.sample(
                    request.headers[.authorization], app: context.parameters.get("app") ?? "", integration: context.parameters.get("integration") ?? "", target: target)
            }
        }
    }

    /// The console on a port of its own (`HERALD_CONSOLE_PORT`), apart from health and metrics.
    public static func server(console: Console) -> some Service {
        let router = Router(context: HeraldRequestContext.self)
        add(to: router, console: console)
        let logger = console.logger
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(console.configuration.host, port: console.configuration.port ?? 0), serverName: "herald-console"),
            onServerRunning: { channel in
                logger.info("listening", metadata: ["service": "herald-gateway", "role": "console", "port": "\(channel.localAddress?.port ?? 0)"])
            },
            logger: logger)
    }

    static func file(_ file: ConsoleAssets.File) -> Response {
        Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// Runs a handler of the console's API: its object as JSON, or its error as problem+json.
    static func answer(_ body: () async throws -> Console.Object) async -> Response {
        do {
            let object = try await body()
            let data = (try? JSONValue(any: object))?.json ?? Data("{}".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        } catch let error as GatewayError {
            return problem(error)
        } catch {
            return problem(GatewayError(500, "Internal Server Error", "the console request failed"))
        }
    }

    static func problem(_ error: GatewayError) -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: .init(code: error.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.body)))
    }

    /// The request's JSON object; 400 when the body is not one.
    static func object(_ request: Request) async throws -> [String: JSONValue] {
        let data = Data(try await request.body.collect(upTo: 64 * 1024).readableBytesView)
        if data.isEmpty { return [:] }
        guard let object = (try? JSONValue(json: data))?.objectValue else {
            throw GatewayError(400, "Invalid request", "the body must be a JSON object")
        }
        return object
    }

    static func ids(_ body: [String: JSONValue]) throws(GatewayError) -> [String] {
        let list = body["ids"]?.arrayValue ?? []
        let ids = list.compactMap(\.stringValue)
        guard !ids.isEmpty, ids.count == list.count else {
            throw GatewayError(400, "Invalid request", "ids: the dead letters' ids are required", field: "ids")
        }
        return ids
    }
}
