import Foundation
import Gateway
import HeraldSources
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Messaging
import ServiceKit
import Testing

/// Every class of error, as RFC 9457 problem+json through real HTTP.
@Suite("Gateway errors", .needs(.broker))
struct ErrorTests {
    static let push = #"{"messageId":"m1","pushId":"p","requestor":"r","type":"AUTH"}"#

    func expectProblem(_ answer: GatewayFixture.Answer, _ status: Int, field: String? = nil, mentions: String? = nil) {
        #expect(answer.status == status, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.headers["content-type"]?.hasPrefix("application/problem+json") == true)
        #expect(answer.json["status"] as? Int == status && answer.json["title"] is String && answer.json["detail"] is String)
        if let field { #expect(answer.json["field"] as? String == field, "\(answer.json)") }
        if let mentions { #expect((answer.json["detail"] as? String)?.contains(mentions) == true, "\(answer.json)") }
    }

    @Test func keysAreCheckedForPresenceAppAndScope() async throws {
        let gateway = try await GatewayFixture()
        let body = Data(Self.push.utf8)
        expectProblem(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: nil, body: body), 401)
        expectProblem(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: "not-a-key", body: body), 401, mentions: "unknown")
        expectProblem(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: GatewayFixture.keys["other"], body: body), 403, mentions: "another app")
        expectProblem(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: GatewayFixture.keys["devices"], body: body), 403, mentions: "events scope")
        expectProblem(await gateway.send("GET", "/v1/apps/{app}/settings/notifications", key: GatewayFixture.keys["devices"]), 403, mentions: "admin")
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: GatewayFixture.keys["events"], body: body).status == 202)
        await gateway.stop()
    }

    /// No app enumeration: whether an app exists is told only to its own keys.
    @Test func anUnknownAppIsToldApartFromAnotherAppByNobody() async throws {
        let gateway = try await GatewayFixture()
        let body = Data(Self.push.utf8)
        expectProblem(await gateway.send("POST", "/v1/apps/nope/smartid/push", key: nil, body: body), 401)
        expectProblem(await gateway.send("POST", "/v1/apps/nope/smartid/push", key: "not-a-key", body: body), 401, mentions: "unknown")
        let unknown = await gateway.send("POST", "/v1/apps/nope/smartid/push", body: body)
        let another = await gateway.send("POST", "/v1/apps/other-\(gateway.app.dropFirst(3))/smartid/push", body: body)
        expectProblem(unknown, 403, mentions: "another app")
        #expect(unknown.status == another.status && unknown.json["detail"] as? String == another.json["detail"] as? String)
        await gateway.stop()
    }

    @Test func aKeyWithoutAScopeListMayOnlyPostEvents() async throws {
        let gateway = try await GatewayFixture()
        let key = GatewayFixture.keys["unscoped"]
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: key, body: Data(Self.push.utf8)).status == 202)
        expectProblem(await gateway.send("GET", "/v1/apps/{app}/devices/none", key: key), 403, mentions: "devices scope")
        expectProblem(await gateway.send("GET", "/v1/apps/{app}/settings/notifications", key: key), 403, mentions: "admin")
        await gateway.stop()
    }

    @Test func aKeyOverItsRateLimitIs429WithRetryAfterAndPublishesNothing() async throws {
        let gateway = try await GatewayFixture(rateLimits: "{ key: { perSecond: 0.01, burst: 2 } }")
        let body = { (id: String) in Data(#"{"messageId":"\#(id)","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8) }
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body("r1")).status == 202)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body("r2")).status == 202)
        let refused = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body("r3"))
        expectProblem(refused, 429, mentions: "rate limit")
        #expect(Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", key: GatewayFixture.keys["events"], body: body("r4")).status == 202)
        try await gateway.waitForEvents("the accepted events") { $0.count == 3 }
        #expect(try await gateway.published().map(\.id) == ["r1", "r2", "r4"].map { smartIDEventId(messageId: $0, pushId: "p") })
        await gateway.stop()
    }

    @Test func aNullIsRefusedNotReadAsAbsent() async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("PUT", "/v1/apps/{app}/users/u1/preferences", body: Data(#"{"enabled":true,"mutedKinds":null}"#.utf8))
        expectProblem(answer, 400, field: "mutedKinds")
        await gateway.stop()
    }

    @Test func aMethodThePathDoesNotHaveIs405WithTheMethodsItHas() async throws {
        let gateway = try await GatewayFixture()
        for (method, path, allow) in [
            ("TRACE", "/v1/apps/{app}/smartid/push", "POST"), ("DELETE", "/v1/apps/{app}/events", "GET, POST"),
            ("POST", "/v1/apps/{app}/devices/d1", "DELETE, GET, PUT"), ("PATCH", "/v1/apps/{app}/settings/notifications", "GET, PUT"),
        ] {
            let answer = await gateway.send(method, path)
            expectProblem(answer, 405)
            #expect(answer.headers["allow"] == allow, "\(method) \(path)")
        }
        await gateway.stop()
    }

    @Test func aBodyOver64KiBIsTooLarge() async throws {
        let gateway = try await GatewayFixture()
        let big = Data(#"{"messageId":"m","pushId":"p","requestor":"\#(String(repeating: "x", count: 70_000))","type":"AUTH"}"#.utf8)
        expectProblem(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: big), 413)
        await gateway.stop()
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        var path: String
        var body: String
        var field: String?
        var headers: [String: String] = [:]
        var testDescription: String { "\(path) \(body.prefix(40))" }
    }

    static let invalid: [Invalid] = [
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH""#, field: nil),
        Invalid(path: "/smartid/push", body: #"{"pushId":"p","requestor":"r","type":"AUTH"}"#, field: "messageId"),
        Invalid(path: "/smartid/push", body: #"{"messageId":7,"pushId":"p","requestor":"r","type":"AUTH"}"#, field: "messageId"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"LOGIN"}"#, field: "type"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH","timeToLive":"60"}"#, field: "timeToLive"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH","timeToLive":1.5}"#, field: "timeToLive"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH","timeToLive":true}"#, field: "timeToLive"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH","timeToLive":2419201}"#, field: "timeToLive"),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH","timeToLive":9223372036854775807}"#, field: "timeToLive"),
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"users":["u"]},"options":{"ttlSeconds":9223372036854775807}}"#, field: "options.ttlSeconds"),
        Invalid(path: "/smartid/push", body: #"["not","an","object"]"#, field: nil),
        Invalid(path: "/upstra/events", body: #"{"event":"member.joined","channel":{"id":"c","displayName":"C"},"actor":{"id":"a","displayName":"A"},"recipients":["u"]}"#, field: "Idempotency-Key", headers: ["Idempotency-Key": String(repeating: "k", count: 201)]),
        Invalid(path: "/webcom/events", body: #"{"path":"/a","event":"value.changed","recipients":["u"]}"#, field: "Idempotency-Key", headers: ["Idempotency-Key": "two words"]),
        // An event id is read back in a URL path: a percent sign would be read as an escape.
        Invalid(path: "/webcom/events", body: #"{"path":"/a","event":"value.changed","recipients":["u"]}"#, field: "Idempotency-Key", headers: ["Idempotency-Key": "50%25"]),
        Invalid(path: "/smartid/push", body: #"{"messageId":"m%1B","pushId":"p","requestor":"r","type":"AUTH"}"#, field: "messageId"),
        Invalid(path: "/events", body: #"{"id":"e%20","source":"api","kind":"k","audience":{"users":["u"]}}"#, field: "id"),
        // A source is an open name, but the canonical event names one this deployment serves.
        Invalid(path: "/events", body: #"{"id":"e","source":"fax","kind":"k","audience":{"users":["u"]}}"#, field: "source"),
        // A direct token's platform is a provider this deployment runs.
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"tokens":[{"platform":"fcm","token":"a"},{"platform":"pigeon","token":"b"}]}}"#, field: "audience.tokens[1].platform"),
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"tokens":[{"platform":"FCM","token":"a"}]}}"#, field: "audience.tokens[0].platform"),
        // Callbacks are Herald's own: an event cannot address the app's callback endpoint.
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"tokens":[{"platform":"callback","token":"a"}]}}"#, field: "audience.tokens[0].platform"),
        // No field is nullable: a null is refused, not read as absent.
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"users":["u"]},"alert":null}"#, field: "alert"),
        Invalid(path: "/upstra/events", body: #"{"event":"message.created","channel":{"id":"c","displayName":7},"actor":{"id":"a","displayName":"A"},"message":{"type":"text"},"recipients":["u"]}"#, field: "channel.displayName"),
        Invalid(path: "/upstra/events", body: #"{"event":"message.deleted","channel":{"id":"c","displayName":"C"},"actor":{"id":"a","displayName":"A"},"recipients":["u"]}"#, field: "event"),
        Invalid(path: "/upstra/events", body: #"{"event":"member.joined","channel":{"id":"c","displayName":"C"},"actor":{"id":"a","displayName":"A"},"recipients":[1]}"#, field: "recipients[0]"),
        Invalid(path: "/webcom/events", body: #"{"path":"/a","event":"value.changed","hideData":"yes","recipients":["u"]}"#, field: "hideData"),
        Invalid(path: "/webcom/events", body: #"{"path":"/a","event":"value.changed","hideData":1,"recipients":["u"]}"#, field: "hideData"),
        Invalid(path: "/email/messages", body: #"{"emailAddressId":"a","sudoId":"s","owner":"o","messageId":"m","from":"f","receivedAt":"yesterday"}"#, field: "receivedAt"),
        Invalid(path: "/evernym/notify", body: #"{"msgId":"m","msgType":"t","sponseeDetails":"s"}"#, field: "relationshipDid"),
        Invalid(path: "/events", body: #"{"id":"e","source":"api","kind":"k","audience":{"users":["u"],"devices":["d"]}}"#, field: "audience"),
    ]

    @Test(arguments: invalid)
    func anInvalidBodyIsABadRequestNamingTheFieldAndPublishesNothing(_ sample: Invalid) async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("POST", "/v1/apps/{app}" + sample.path, body: Data(sample.body.utf8), headers: sample.headers)
        expectProblem(answer, 400, field: sample.field)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Data(Self.push.utf8)).status == 202)
        try await gateway.waitForEvents("the valid event") { !$0.isEmpty }
        // Publishing is at least once (a confirm lost with a connection is published again),
        // so the valid event may be there twice; the invalid one must not be there at all.
        let ids = try await gateway.published().map(\.id)
        #expect(Set(ids) == [smartIDEventId(messageId: "m1", pushId: "p")], "only the valid request published: \(ids)")
        await gateway.stop()
    }

    @Test func anUnreachableBrokerAnswers503WithRetryAfter() async throws {
        let gateway = try await GatewayFixture(amqpURL: "amqp://guest:guest@127.0.0.1:\(try freePort())/")
        let answer = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Data(Self.push.utf8))
        expectProblem(answer, 503)
        #expect(answer.headers["retry-after"] == "5")
        await gateway.stop()
    }
}

@Suite("Gateway internals", .needs(.broker))
struct GatewayInternalsTests {
    @Test("an unexpected error is answered 500 with the request id its log line carries")
    func unexpectedErrorCarriesARequestId() async throws {
        let gateway = try await GatewayFixture(commandServers: false)
        // A registration service that answers with a reply that does not decode.
        let server = RPCServer(
            configuration: gateway.runtime.connection("broken-registration"), queue: gateway.commandQueues[0].name,
            publisher: gateway.runtime.requirePublisher, errorReply: RPCReply.commandError
        ) { _ in RPCReply(type: RegistrationReply.contractName, body: Data("not json".utf8)) }
        let serving = Task { await server.run() }
        #expect(await server.waitUntilConnected(timeout: .seconds(20)))
        let answer = await gateway.send("GET", "/v1/apps/{app}/devices/d1")
        #expect(answer.status == 500)
        #expect(answer.headers["content-type"]?.hasPrefix("application/problem+json") == true)
        let requestId = try #require(answer.json["requestId"] as? String)
        #expect(requestId.count == 36)
        #expect((answer.json["detail"] as? String)?.contains(requestId) == true)
        server.stop()
        await serving.value
        await gateway.stop()
    }

    @Test("the gateway's RPC client and its deadline timer stop with the service group")
    func clientsStopWithTheGroup() async throws {
        let gateway = try await GatewayFixture()
        #expect(await gateway.send("GET", "/v1/apps/{app}/devices/none").status == 404)
        await gateway.stop()
        // The group returned, so every service's run() returned; the client is closed.
        #expect(!gateway.rpc.isConnected)
        let error = await #expect(throws: MessagingError.self) {
            _ = try await gateway.rpc.call(queue: gateway.commandQueues[0].name, type: "x", body: Data(), timeout: .seconds(30))
        }
        #expect(error?.reason == .shutdown)
    }

    @Test("every endpoint states its method, path and scope; only the events endpoints and what reads them take an events key, only settings and ingest URLs an admin one, none the console's")
    func everyEndpointStatesItsScope() {
        for endpoint in Endpoint.all(.herald) {
            let route = endpoint.route
            #expect(!route.path.isEmpty)
            switch route.scope {
            case .events: #expect(endpoint.publishes || [Endpoint.getEvent, .listEvents, .getStats].contains(endpoint), "\(endpoint)")
            case .admin: #expect([Endpoint.getSettings, .putSettings, .listIngestURLs, .createIngestURL, .rotateIngestURL, .revokeIngestURL, .revokeIngestSecret].contains(endpoint), "\(endpoint)")
            case .devices: #expect(!endpoint.publishes, "\(endpoint)")
            case .console: Issue.record("\(endpoint): the console scope is the console's, no endpoint's own")
            }
        }
    }
}
