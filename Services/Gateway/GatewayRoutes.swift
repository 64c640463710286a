import Foundation
import HeraldDomain
import HeraldTracing
import HTTPTypes
import Hummingbird
import ServiceKit

/// Serves the gateway on a Hummingbird router: one route per `Endpoint` (the sources' and Herald's own), and the OpenAPI
/// document at `/openapi.yaml`.
public enum GatewayRoutes {
    public static func add(to router: Router<HeraldRequestContext>, gateway: Gateway) {
        // A server span per request, continuing the caller's `traceparent`/`tracestate`; an
        // ingest URL's secret is masked in it.
        if HeraldTracing.isEnabled { router.add(middleware: SecretMaskingTracingMiddleware()) }
        addEndpoints(to: router, gateway: gateway)
        addIngestEndpoints(to: router, gateway: gateway)
        router.get("/openapi.yaml") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(OpenAPIDocument.yaml.utf8))))
        }
    }

    /// Every endpoint under `prefix` (the console mounts them under `/console/api`, acting with
    /// the console scope: `viaConsole`), and 405 for a method a path lacks.
    public static func addEndpoints(to router: some RouterMethods<HeraldRequestContext>, gateway: Gateway, prefix: String = "", viaConsole: Bool = false) {
        for (endpoint, path, fixed) in routes(gateway) {
            let names = path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
            router.on(RouterPath(prefix + path), method: HTTPRequest.Method(endpoint.method)!) { request, context -> Response in
                var parameters = fixed
                for name in names { parameters[name] = context.parameters.get(name) }
                return await serve(endpoint, parameters: parameters, request: request, gateway: gateway, viaConsole: viaConsole)
            }
        }
        // A method a path does not have is answered 405 with the methods it has (RFC 9110).
        for (path, methods) in Dictionary(grouping: routes(gateway), by: \.path).mapValues({ $0.map(\.endpoint.method) }) {
            let allow = methods.sorted().joined(separator: ", ")
            for other in Self.methods where !methods.contains(other) {
                router.on(RouterPath(prefix + path), method: HTTPRequest.Method(other)!) { _, _ -> Response in
                    var answer = response(Gateway.Reply(
                        status: 405, body: GatewayError(405, "Method Not Allowed", "\(other) is not allowed here; this path allows \(allow)").body,
                        contentType: "application/problem+json"))
                    answer.headers[.allow] = allow
                    return answer
                }
            }
        }
    }

    /// Each source's endpoint at its ingest URLs, `/v1/ingest/{secret}` and then the endpoint's
    /// own path under its app (`/v1/ingest/{secret}/evernym/notify`): the secret in the path is
    /// the credential, for an upstream that can be given a URL but sends no header.
    static func addIngestEndpoints(to router: some RouterMethods<HeraldRequestContext>, gateway: Gateway) {
        for (endpoint, path) in ingestRoutes(gateway.endpoints) {
            router.on(RouterPath(path), method: HTTPRequest.Method(endpoint.method)!) { request, context -> Response in
                await serve(endpoint, parameters: [:], request: request, gateway: gateway, ingestSecret: context.parameters.get("secret") ?? "",
                            peer: context.remoteAddress?.ipAddress)
            }
        }
    }

    /// Each ingest URL's route: a source's endpoint under `/v1/ingest/:secret`.
    public static func ingestRoutes(_ endpoints: [Endpoint]) -> [(endpoint: Endpoint, path: String)] {
        endpoints.filter { $0.ingestSource != nil }.map { ($0, IngestSecrets.pathPrefix + ":secret" + $0.route.path) }
    }

    /// One request to `endpoint`: its body read up to the endpoint's limit (413 past it), then the gateway's answer.
    static func serve(
        _ endpoint: Endpoint, parameters: [String: String], request: Request, gateway: Gateway, viaConsole: Bool = false, ingestSecret: String? = nil, peer: String? = nil
    ) async -> Response {
        let body: Data
        let limit = gateway.configuration.bodyLimit(endpoint)
        do {
            body = Data(try await request.body.collect(upTo: limit).readableBytesView)
        } catch {
            return response(Gateway.Reply(
                status: 413, body: GatewayError(413, "Payload Too Large", "the body exceeds \(limit) bytes").body,
                contentType: "application/problem+json"))
        }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        let reply = await gateway.handle(Gateway.Request(
            endpoint: endpoint, parameters: parameters, query: query,
            authorization: request.headers[.authorization], idempotencyKey: request.headers[Self.idempotencyKey],
            ifMatch: request.headers[.ifMatch], body: body, viaConsole: viaConsole, ingestSecret: ingestSecret, peer: peer))
        return response(reply)
    }

    /// Each endpoint's path, with the parameters it fixes: a provider's resource is served at
    /// its own path (`/v1/apps/:app/webpush/vapid-public-key`), one per resource of the
    /// registry, rather than at a pattern that would shadow other paths.
    public static func routes(_ gateway: Gateway) -> [(endpoint: Endpoint, path: String, fixed: [String: String])] {
        routes(gateway.endpoints, providers: gateway.providers)
    }

    /// `endpoints`' paths, with a provider resource's at each of `providers`' resources.
    public static func routes(_ endpoints: [Endpoint], providers: ProviderRegistry) -> [(endpoint: Endpoint, path: String, fixed: [String: String])] {
        endpoints.flatMap { endpoint -> [(endpoint: Endpoint, path: String, fixed: [String: String])] in
            guard endpoint == .getProviderResource else { return [(endpoint, endpoint.path, [:])] }
            return providers.providers.flatMap { provider in
                provider.resources.map { resource in
                    (endpoint, "/v1/apps/:app/\(provider.platform)/\(resource.name)", ["platform": provider.platform.rawValue, "resource": resource.name])
                }
            }
        }
    }

    /// The methods a path that lacks them answers 405 (HEAD and OPTIONS are left to the server).
    static let methods = ["GET", "PUT", "POST", "DELETE", "PATCH", "TRACE", "QUERY"]

    /// `Idempotency-Key`, the id of an event whose body carries none.
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    static func response(_ reply: Gateway.Reply) -> Response {
        var headers: HTTPFields = [.contentType: reply.contentType]
        if let retryAfter = reply.retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let entityTag = reply.entityTag { headers[.eTag] = entityTag }
        return Response(status: .init(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}

/// The OpenAPI 3.1 document of the public API, shipped with the gateway.
public enum OpenAPIDocument {
    public static let yaml: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let text = try? String(contentsOf: url, encoding: .utf8) else { return "openapi: 3.1.0\n" }
        return text
    }()
}
