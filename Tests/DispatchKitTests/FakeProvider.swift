import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HTTPTransport
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A made-up push provider on real HTTP, to test what every provider adapter shares: an
/// OAuth client-credentials token endpoint (`POST /token`, secret `good`), and a multicast
/// send (`POST /send` with `{"tokens": [...]}`) that answers per token. Tokens say what
/// happens: `ok-…` delivered, `dead-…` revoked, `busy-…` makes the whole request a 429
/// with `Retry-After: 7`; `slow-…` answers after three seconds; `big-…` answers with 64 KiB.
final class FakeProvider: Sendable {
    struct State {
        var issued: [String] = []
        var valid: Set<String> = []
        var tokenRequests = 0
        var sendRequests = 0
        /// Refuse every access token, fresh or not.
        var refuseAll = false
    }

    let state = Mutex(State())
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    let port: Int

    var url: String { "http://127.0.0.1:\(port)" }

    static func start() async throws -> FakeProvider {
        let router = Router()
        let provider = FakeProviderRoutes()
        provider.add(to: router)
        let bound = Mutex<Int?>(nil)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in bound.withLock { $0 = channel.localAddress?.port } }, logger: Logger(label: "fake"))
        let group = ServiceGroup(services: [application], logger: Logger(label: "fake"))
        let task = Task { try await group.run() }
        try await eventually(timeout: .seconds(60), "the fake provider to listen") { bound.withLock { $0 } != nil }
        let fake = FakeProvider(group: group, task: task, port: bound.withLock { $0 }!)
        provider.fake.withLock { $0 = fake }
        return fake
    }

    private init(group: ServiceGroup, task: Task<Void, any Error>, port: Int) {
        self.group = group
        self.task = task
        self.port = port
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// Makes every access token issued so far invalid.
    func revokeAccessTokens() { state.withLock { $0.valid.removeAll() } }

    func token(form: String) -> (Int, String) {
        state.withLock { state in
            state.tokenRequests += 1
            guard form.contains("client_secret=good") else {
                return (401, #"{"error":"invalid_client","error_description":"the client secret is wrong"}"#)
            }
            let token = "access-\(state.issued.count + 1)"
            state.issued.append(token)
            state.valid.insert(token)
            return (200, #"{"access_token":"\#(token)","expires_in":3600,"token_type":"Bearer"}"#)
        }
    }

    func send(authorization: String?, body: Data) async -> (Int, [(String, String)], String) {
        let accepted = state.withLock { state -> Bool in
            state.sendRequests += 1
            guard !state.refuseAll, let authorization, authorization.hasPrefix("Bearer ") else { return false }
            return state.valid.contains(String(authorization.dropFirst(7)))
        }
        guard accepted else { return (401, [], #"{"refused":"the access token is not valid"}"#) }
        let tokens = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["tokens"] as? [String] ?? []
        if tokens.contains(where: { $0.hasPrefix("busy-") }) { return (429, [("Retry-After", "7")], #"{"error":"slow down"}"#) }
        if tokens.contains(where: { $0.hasPrefix("slow-") }) { try? await Task.sleep(for: .seconds(3)) }
        if tokens.contains(where: { $0.hasPrefix("big-") }) { return (200, [], String(repeating: "x", count: 64 * 1024)) }
        let results = tokens.map { #""\#($0)":"\#($0.hasPrefix("dead-") ? "dead" : "ok")""# }.joined(separator: ",")
        return (200, [], #"{"results":{\#(results)}}"#)
    }
}

/// The routes, bound to the provider once it exists.
private final class FakeProviderRoutes: Sendable {
    let fake = Mutex<FakeProvider?>(nil)

    func add(to router: Router<BasicRequestContext>) {
        router.post("/token") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let (status, text) = fake.withLock { $0 }!.token(form: String(decoding: body.readableBytesView, as: UTF8.self))
            return Self.response(status, [], text)
        }
        router.post("/send") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let (status, headers, text) = await fake.withLock { $0 }!.send(authorization: request.headers[.authorization], body: Data(body.readableBytesView))
            return Self.response(status, headers, text)
        }
    }

    static func response(_ status: Int, _ headers: [(String, String)], _ text: String) -> Response {
        var fields: HTTPFields = [.contentType: "application/json"]
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return Response(status: .init(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

