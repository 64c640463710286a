import Foundation
import HeraldModel
import Testing

@Suite("Decoding contracts")
struct ContractValidationTests {
    func event(audience: String, extra: String = "") -> Data {
        Data("""
        {"id":"e1","app":"demo","source":"api","kind":"message.created","occurredAt":"2026-11-21T10:00:00Z","audience":\(audience)\(extra)}
        """.utf8)
    }

    func failure(_ data: Data) -> String? {
        do {
            _ = try HeraldJSON.decode(NotificationEvent.self, from: data)
            return nil
        } catch {
            return HeraldJSON.describe(error)
        }
    }

    @Test("an event with only the required fields decodes with empty maps and default options")
    func minimalEvent() throws {
        let event = try HeraldJSON.decode(NotificationEvent.self, from: event(audience: #"{"users":["u1"]}"#))
        #expect(event.audience == .users(["u1"]))
        #expect(event.context.isEmpty && event.data.isEmpty && event.alert == nil)
        #expect(event.options == DeliveryOptions())
        #expect(event.routingKey == "api.message.created")
        #expect(event.occurredAt == HeraldJSON.parseTimestamp("2026-11-21T10:00:00.000Z"))
    }

    @Test("unknown keys are ignored")
    func unknownKeysIgnored() throws {
        let event = try HeraldJSON.decode(NotificationEvent.self, from: event(audience: #"{"devices":["d1"],"future":1}"#, extra: #","somethingNew":{"a":1}"#))
        #expect(event.audience == .devices(["d1"]))
    }

    @Test("an audience must have exactly one form")
    func audienceExactlyOne() {
        #expect(failure(event(audience: "{}"))?.contains("exactly one of users, pushIds, devices, tokens, emailAddressId (found none)") == true)
        #expect(failure(event(audience: #"{"users":["u"],"devices":["d"]}"#))?.contains("found users, devices") == true)
        #expect(failure(event(audience: #"{"users":[]}"#)) == "audience.users: must not be empty")
    }

    @Test("direct tokens name their platform")
    func directTokens() throws {
        let decoded = try HeraldJSON.decode(NotificationEvent.self, from: event(audience: #"{"tokens":[{"platform":"fcm","token":"t1"}]}"#))
        #expect(decoded.audience == .tokens([DirectToken(platform: .fcm, token: "t1")]))
        // Any provider's name is a platform (which ones a deployment serves is its registry's
        // to say); a name that cannot be one is refused.
        let other = try HeraldJSON.decode(NotificationEvent.self, from: event(audience: #"{"tokens":[{"platform":"apns","token":"t1"}]}"#))
        #expect(other.audience == .tokens([DirectToken(platform: "apns", token: "t1")]))
        for name in ["APNs", "", "a b", "-fcm", String(repeating: "a", count: 33)] {
            #expect(failure(event(audience: #"{"tokens":[{"platform":"\#(name)","token":"t1"}]}"#))?.hasPrefix("audience.tokens[0].platform") == true, "\(name)")
        }
    }

    @Test("a missing field is named in the error")
    func missingField() {
        let data = Data(#"{"id":"e1","source":"api","kind":"k","occurredAt":"2026-11-21T10:00:00Z","audience":{"users":["u"]}}"#.utf8)
        #expect(failure(data) == "missing field \"app\"")
    }

    @Test("timestamps must be ISO-8601")
    func badTimestamp() {
        let data = Data(#"{"id":"e1","app":"a","source":"api","kind":"k","occurredAt":"yesterday","audience":{"users":["u"]}}"#.utf8)
        #expect(failure(data)?.hasPrefix("occurredAt: expected an ISO-8601 UTC timestamp") == true)
    }

    @Test("a source that is not a name is rejected; which names are served is the gateway's to say")
    func unknownSource() throws {
        let data = Data(#"{"id":"e1","app":"a","source":"Fax Machine","kind":"k","occurredAt":"2026-11-21T10:00:00Z","audience":{"users":["u"]}}"#.utf8)
        #expect(failure(data)?.hasPrefix("source:") == true)
        let open = Data(#"{"id":"e1","app":"a","source":"fax","kind":"k","occurredAt":"2026-11-21T10:00:00Z","audience":{"users":["u"]}}"#.utf8)
        #expect(try HeraldJSON.decode(NotificationEvent.self, from: open).source == "fax")
    }

    @Test("an alert is either a template or a literal title and body")
    func alertForms() throws {
        let template = try HeraldJSON.decode(Alert.self, from: Data(#"{"template":"chat.message","args":{"user":"Ann"}}"#.utf8))
        #expect(template == .template(name: "chat.message", args: ["user": "Ann"]))
        let literal = try HeraldJSON.decode(Alert.self, from: Data(#"{"title":"Hi"}"#.utf8))
        #expect(literal == .literal(title: "Hi", body: nil))
        #expect(throws: DecodingError.self) { try HeraldJSON.decode(Alert.self, from: Data(#"{"template":"x","title":"y"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try HeraldJSON.decode(Alert.self, from: Data("{}".utf8)) }
    }

    @Test("a negative TTL is rejected")
    func negativeTTL() {
        #expect(failure(event(audience: #"{"users":["u"]}"#, extra: #","options":{"ttlSeconds":-1}"#)) == "options.ttlSeconds: must not be negative")
    }

    @Test("a TTL longer than the providers' four weeks is rejected, on both read paths", arguments: [2_419_201, Int.max])
    func ttlBeyondFourWeeks(ttl: Int) throws {
        let body = event(audience: #"{"users":["u"]}"#, extra: #","options":{"ttlSeconds":\#(ttl)}"#)
        #expect(failure(body) == "options.ttlSeconds: must be at most 2419200 (four weeks)")
        #expect(throws: (any Error).self) { try NotificationEvent.fromWireJSON(body) }
        var delivery = try JSONSerialization.jsonObject(with: ContractSamples.delivery.wireJSON()) as! [String: Any]
        delivery["options"] = ["ttlSeconds": ttl]
        let deliveryBody = try JSONSerialization.data(withJSONObject: delivery)
        #expect(throws: (any Error).self) { try Delivery.fromWireJSON(deliveryBody) }
    }

    @Test("the longest TTL, four weeks, is accepted")
    func ttlOfFourWeeks() throws {
        let parsed = try NotificationEvent.fromWireJSON(event(audience: #"{"users":["u"]}"#, extra: #","options":{"ttlSeconds":2419200}"#))
        #expect(parsed.options.ttlSeconds == DeliveryOptions.maximumTTL)
    }

    @Test("a dispatch request's attempt and TTL are bounded, on both read paths",
          arguments: [("attempt", 0), ("attempt", Int.max), ("ttlSeconds", -1), ("ttlSeconds", 2_419_201), ("ttlSeconds", Int.max)])
    func dispatchRequestBounds(field: String, value: Int) throws {
        var request = try JSONSerialization.jsonObject(with: ContractSamples.dispatch.wireJSON()) as! [String: Any]
        request[field] = value
        let body = try JSONSerialization.data(withJSONObject: request)
        #expect(throws: (any Error).self) { try DispatchRequest.fromWireJSON(body) }
        do {
            _ = try HeraldJSON.decode(DispatchRequest.self, from: body)
        } catch {
            #expect(HeraldJSON.describe(error).hasPrefix("\(field): must "))
        }
    }

    @Test("delivery ids are deterministic per app, event and device, and distinct otherwise")
    func deterministicDeliveryIds() {
        let a = Delivery.makeId(app: "demo", eventId: "e1", deviceId: "d1")
        #expect(a == Delivery.makeId(app: "demo", eventId: "e1", deviceId: "d1"))
        #expect(a.count == 32)
        #expect(a != Delivery.makeId(app: "demo", eventId: "e1", deviceId: "d2"))
        #expect(a != Delivery.makeId(app: "other", eventId: "e1", deviceId: "d1"))
        // The separator keeps ("e1", "d1x") and ("e1d", "1x") apart.
        #expect(Delivery.makeId(app: "a", eventId: "e1", deviceId: "d1x") != Delivery.makeId(app: "a", eventId: "e1d", deviceId: "1x"))
    }

    @Test("contract metadata follows the wire conventions")
    func contractMetadata() {
        let event = ContractSamples.event
        #expect(NotificationEvent.contractName == "herald.event.v1")
        #expect(event.messageId == event.id && event.correlationId == event.id)
        #expect(ContractSamples.delivery.correlationId == event.id)
        #expect(ContractSamples.dispatch.messageId.hasSuffix("#2"))
        #expect(ContractSamples.outcome.routingKey == "revoked")
        #expect(TokenRevoked.contractName == "herald.token-revoked.v1")
    }
}
