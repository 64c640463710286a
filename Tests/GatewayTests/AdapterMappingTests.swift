import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// Every adapter's request, accepted through real HTTP and published as the event its
/// golden fixture shows (`Fixtures/<name>.json`; `occurredAt` and generated ids normalised).
/// Regenerate deliberately with `HERALD_RECORD_FIXTURES=1 swift test --filter AdapterMappingTests`.
@Suite("Source adapters", .needs(.broker))
struct AdapterMappingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var path: String
        var body: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "smartid-push", path: "/smartid/push", body: #"{"messageId":"9f1c-msg","pushId":"push-1","requestor":"Example Bank","type":"AUTH","timeToLive":90}"#),
        Case(name: "smartid-push-sign", path: "/smartid/push", body: #"{"messageId":"9f1c-sign","pushId":"push-1","requestor":"Example Bank","type":"SIGN"}"#),
        Case(name: "evernym-notify", path: "/evernym/notify", body: #"{"msgId":"msg-1","msgType":"credOffer","sponseeDetails":"sponsee-7","relationshipDid":"did:sov:abc","metaData":{"msgType":"credOffer","msgSenderName":"Faber College"}}"#),
        // Evernym's earlier forward: msgType only inside metaData.
        Case(name: "evernym-notify-earlier", path: "/evernym/notify", body: #"{"msgId":"msg-2","sponseeDetails":"sponsee-7","relationshipDid":"did:sov:abc","metaData":{"msgType":"credOffer","msgSenderName":"Faber College"}}"#),
        // The config object Evernym's SDK sends, as JSON text: read as the sponsee of its id.
        Case(name: "evernym-notify-config", path: "/evernym/notify", body: #"{"msgId":"msg-3","msgType":"credOffer","sponseeDetails":"{\"id\":\"sponsee-9\",\"type\":3,\"value\":\"https://sponsor.example/s9\"}","relationshipDid":"did:sov:abc"}"#),
        Case(name: "upstra-message", path: "/upstra/events", body: #"{"event":"message.created","channel":{"id":"ch-9","displayName":"Design"},"actor":{"id":"u-2","displayName":"Ann"},"message":{"type":"image"},"recipients":["u-1","u-3"]}"#),
        Case(name: "upstra-member-joined", path: "/upstra/events", body: #"{"event":"member.joined","channel":{"id":"ch-9","displayName":"Design"},"actor":{"id":"u-4","displayName":"Bob"},"recipients":["u-1"]}"#),
        Case(name: "email-received", path: "/email/messages", body: #"{"emailAddressId":"addr-1","sudoId":"sudo-1","owner":"user-1","messageId":"em-5","from":"alice@example.com","subject":"Report","receivedAt":"2026-11-21T09:59:57.000Z"}"#),
        Case(name: "webcom-children", path: "/webcom/events", body: #"{"path":"/rooms/r1","event":"children.updated","added":{"k1":{"n":1}},"removed":{"k9":null},"recipients":["u-1"]}"#),
        Case(name: "webcom-value-hidden", path: "/webcom/events", body: #"{"path":"/sensors/s1","event":"value.changed","value":21.5,"hideData":true,"recipients":["u-1"]}"#),
        Case(name: "webcom-revoked", path: "/webcom/events", body: #"{"path":"/rooms/r1","event":"subscription.revoked","reason":"permission denied","recipients":["u-1"]}"#),
        Case(name: "webcom-revoked-no-reason", path: "/webcom/events", body: #"{"path":"/rooms/r1","event":"subscription.revoked","recipients":["u-1"]}"#),
        Case(name: "canonical", path: "/events", body: #"{"id":"ev-1","source":"api","kind":"news","audience":{"users":["u-1"]},"data":{"a":"b"},"alert":{"title":"Hi","body":"There"},"options":{"ttlSeconds":60,"critical":true}}"#),
    ]

    @Test(arguments: cases)
    func theRequestIsPublishedAsItsGoldenEvent(_ sample: Case) async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("POST", "/v1/apps/{app}" + sample.path, body: Data(sample.body.utf8))
        #expect(answer.status == 202, "\(String(decoding: answer.body, as: UTF8.self))")
        try await gateway.waitForEvents("the event") { $0.count == 1 }
        var event = try #require(try await gateway.published().first)
        #expect(answer.json["eventId"] as? String == event.id)
        #expect(event.id.hasPrefix(event.source.rawValue + ":"), "ids are namespaced by source: \(event.id)")
        if event.source == .upstra || event.source == .webcom {
            // No source id and no Idempotency-Key: a fresh id, normalised for the fixture.
            #expect(UUID(uuidString: String(event.id.dropFirst(event.source.rawValue.count + 1))) != nil, "\(event.id)")
            event.id = event.source.rawValue + ":generated"
        }
        #expect(event.app == gateway.app)
        event.app = "demo"
        if event.source == .webcom {
            #expect(event.data["appId"] == gateway.app, "every Webcom push names its app")
            event.data["appId"] = "demo"
        }
        event.occurredAt = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(abs(event.acceptedAt?.timeIntervalSinceNow ?? .infinity) < 60, "stamped when accepted")
        event.acceptedAt = Date(timeIntervalSince1970: 1_800_000_000)
        let encoded = try HeraldJSON.encoder(pretty: true).encode(event) + Data("\n".utf8)
        let name = "\(sample.name).json"
        let fixture = try #require(try GoldenFixture.expected(encoded, name: name, bundle: .module), "missing fixture \(name)")
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: fixture, as: UTF8.self))
        await gateway.stop()
    }

    @Test func aRepeatedEventIdIsAcceptedAgainWithoutASecondPublish() async throws {
        let gateway = try await GatewayFixture()
        let body = Data(#"{"messageId":"same","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body).status == 202)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body).status == 202)
        let other = Data(#"{"messageId":"other","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: other).status == 202)
        try await gateway.waitForEvents("the later event") { $0.contains { $0.id == smartIDEventId(messageId: "other", pushId: "p") } }
        #expect(try await gateway.published().map(\.id) == ["same", "other"].map { smartIDEventId(messageId: $0, pushId: "p") })
        await gateway.stop()
    }

    @Test func aSmartIDPushWithoutTimeToLiveGetsTheAppsConfiguredTTL() async throws {
        let gateway = try await GatewayFixture(defaultTTL: "{ smartid: { auth: 120 } }")
        for (id, type, ttl) in [("no-ttl", "AUTH", ""), ("own-ttl", "AUTH", #","timeToLive":90"#), ("sign", "SIGN", "")] {
            let body = Data(#"{"messageId":"\#(id)","pushId":"p","requestor":"r","type":"\#(type)"\#(ttl)}"#.utf8)
            #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body).status == 202)
        }
        try await gateway.waitForEvents("three events") { $0.count == 3 }
        let ttls = Dictionary(uniqueKeysWithValues: try await gateway.published().map { ($0.id, $0.options.ttlSeconds) })
        #expect(ttls[smartIDEventId(messageId: "no-ttl", pushId: "p")] == 120, "the app's TTL for Smart ID auth")
        #expect(ttls[smartIDEventId(messageId: "own-ttl", pushId: "p")] == 90, "timeToLive overrides the configured value")
        #expect(ttls[smartIDEventId(messageId: "sign", pushId: "p")] == 300, "Herald's own for a signing request the app does not configure")
        await gateway.stop()
    }

    @Test func aChatMessageWithoutATTLKeepsTheProvidersDefault() async throws {
        let gateway = try await GatewayFixture()
        #expect(await gateway.send("POST", "/v1/apps/{app}/upstra/events", body: Data(Self.chatMessage.utf8)).status == 202)
        try await gateway.waitForEvents("the event") { $0.count == 1 }
        #expect(try await gateway.published().first?.options.ttlSeconds == nil)
        await gateway.stop()
    }

    @Test func aReasonIsOnlyForARevocation() async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("POST", "/v1/apps/{app}/webcom/events", body: Data(#"{"path":"/a","event":"value.changed","value":1,"reason":"why","recipients":["u-1"]}"#.utf8))
        #expect(answer.status == 400)
        let detail = answer.json["detail"] as? String ?? ""
        #expect(detail.contains("reason") && detail.contains("only a subscription.revoked event has a reason"), "\(answer.json)")
        await gateway.stop()
    }

    /// "Values are optional from the sender's perspective": a forward without a type is pushed.
    @Test func anEvernymForwardWithoutAnyMsgTypeIsAccepted() async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("POST", "/v1/apps/{app}/evernym/notify", body: Data(#"{"msgId":"m","sponseeDetails":"s","relationshipDid":"d","metaData":{"msgSenderName":"x"}}"#.utf8))
        #expect(answer.status == 202, "\(answer.json)")
        try await gateway.waitForEvents("the event") { $0.count == 1 }
        #expect(try await gateway.published().first?.data["msgType"] == nil)
        await gateway.stop()
    }

    static let chatMessage = #"{"event":"message.created","channel":{"id":"ch-1","displayName":"Team"},"actor":{"id":"u-2","displayName":"Ann"},"message":{"type":"text","text":"ok"},"recipients":["u-1"]}"#

    @Test func twoIdenticalChatMessagesAreTwoEvents() async throws {
        let gateway = try await GatewayFixture()
        let first = await gateway.send("POST", "/v1/apps/{app}/upstra/events", body: Data(Self.chatMessage.utf8))
        let second = await gateway.send("POST", "/v1/apps/{app}/upstra/events", body: Data(Self.chatMessage.utf8))
        #expect(first.status == 202 && second.status == 202)
        #expect(first.json["eventId"] as? String != second.json["eventId"] as? String)
        try await gateway.waitForEvents("both messages") { $0.count == 2 }
        await gateway.stop()
    }

    @Test func anIdempotencyKeyMakesARetriedRequestTheSameEvent() async throws {
        let gateway = try await GatewayFixture()
        let body = Data(Self.chatMessage.utf8)
        let headers = ["Idempotency-Key": "chat-7f3a"]
        let first = await gateway.send("POST", "/v1/apps/{app}/upstra/events", body: body, headers: headers)
        let again = await gateway.send("POST", "/v1/apps/{app}/upstra/events", body: body, headers: headers)
        #expect(first.json["eventId"] as? String == "upstra:chat-7f3a" && again.json["eventId"] as? String == "upstra:chat-7f3a")
        let other = await gateway.send("POST", "/v1/apps/{app}/webcom/events", body: Data(#"{"path":"/a","event":"value.changed","value":1,"recipients":["u-1"]}"#.utf8), headers: headers)
        #expect(other.json["eventId"] as? String == "webcom:chat-7f3a", "the same key from another integration is another event")
        try await gateway.waitForEvents("the webcom event") { $0.contains { $0.id == "webcom:chat-7f3a" } }
        #expect(try await gateway.published().map(\.id) == ["upstra:chat-7f3a", "webcom:chat-7f3a"])
        await gateway.stop()
    }

    @Test func idsFromDifferentIntegrationsDoNotCollide() async throws {
        let gateway = try await GatewayFixture()
        let push = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Data(#"{"messageId":"m-1","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8))
        let mail = await gateway.send("POST", "/v1/apps/{app}/email/messages", body: Data(#"{"emailAddressId":"a","sudoId":"s","owner":"o","messageId":"m-1","from":"f","receivedAt":"2026-11-21T09:59:57.000Z"}"#.utf8))
        #expect(push.json["eventId"] as? String == smartIDEventId(messageId: "m-1", pushId: "p") && mail.json["eventId"] as? String == "sudo-email:m-1")
        try await gateway.waitForEvents("both events") { $0.count == 2 }
        await gateway.stop()
    }
}
