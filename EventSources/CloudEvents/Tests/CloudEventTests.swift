import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Testing
@testable import CloudEvents

/// What CloudEvents' own SDK writes (structured JSON mode) becomes the Herald event the
/// source's documentation says.
@Suite("CloudEvents source")
struct CloudEventTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interop/structured_event.py").path
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// The SDK's structured event for `attributes` and `data` (or bytes), and its Content-Type.
    static func written(_ attributes: [String: Any], data: Any? = nil, binary: Data? = nil) async throws -> (body: Data, contentType: String?) {
        var request: [String: Any] = ["attributes": attributes]
        if let data { request["data"] = data }
        if let binary { request["binary"] = binary.base64EncodedString() }
        let reply = try await PythonChecker.run(script, request)
        let body = try #require(reply["body"] as? String)
        return (Data(body.utf8), (reply["headers"] as? [String: String])?["content-type"])
    }

    static func event(_ body: Data) throws(GatewayError) -> NotificationEvent {
        let route = CloudEventsSource().routes[0]
        return try route.makeEvent(SourceRequest(body: try JSONFields(body), raw: body, app: "demo", appConfiguration: nil, idempotencyKey: nil, now: now))
    }

    static func problem(_ body: Data) -> GatewayError? {
        do {
            _ = try event(body)
            return nil
        } catch {
            return error
        }
    }

    @Test func anSDKsEventBecomesAnEventOfItsTypeForItsUsers() async throws {
        let (body, contentType) = try await Self.written(
            ["type": "com.example.order.shipped", "source": "/shop/orders", "id": "order-1-shipped", "subject": "order-1",
             "time": "2026-12-07T18:46:02.118380+00:00", "heraldusers": "u-2,u-1,u-2"],
            data: ["orderId": "order-1", "total": 12.5, "lines": [1, 2]])
        #expect(contentType == "application/cloudevents+json")
        let event = try Self.event(body)
        #expect(event.source == .cloudEvents && event.kind == "com.example.order.shipped" && event.app == "demo")
        #expect(event.id == "cloudevents:\(SourceEventIds.shortDigest("/shop/orders")):order-1-shipped")
        #expect(event.audience == .users(["u-1", "u-2"]))
        #expect(event.data == ["orderId": "order-1", "total": "12.5", "lines": "[1,2]", "ceSource": "/shop/orders", "ceId": "order-1-shipped", "ceSubject": "order-1"])
        #expect(event.context["ceType"] == "com.example.order.shipped")
        #expect(abs(event.occurredAt.timeIntervalSince1970 - 1_796_669_162.118380) < 0.001, "its time: \(event.occurredAt)")
    }

    @Test func theSameSourceAndIdAreOneEventAndAnotherSourceAnother() async throws {
        let one = try Self.event(try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": "u"]).body)
        let again = try Self.event(try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": "u"]).body)
        let other = try Self.event(try await Self.written(["type": "t", "source": "/b", "id": "1", "heraldusers": "u"]).body)
        #expect(one.id == again.id && one.id != other.id)
    }

    @Test func dataThatIsNotAnObjectOrIsBinaryIsPassedOn() async throws {
        let text = try Self.event(try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": "u"], data: "hello").body)
        #expect(text.data["data"] == "hello")
        let bytes = Data([0, 1, 2, 250])
        let binary = try Self.event(try await Self.written(["type": "t", "source": "/a", "id": "2", "heraldusers": "u"], binary: bytes).body)
        #expect(binary.data["data_base64"] == bytes.base64EncodedString())
        let none = try Self.event(try await Self.written(["type": "t", "source": "/a", "id": "3", "heraldusers": "u"]).body)
        #expect(none.data == ["ceSource": "/a", "ceId": "3"] && none.occurredAt != Self.now, "the SDK stamps its time")
    }

    @Test func anEventWithoutUsersToNotifyIsRefusedNamingTheAttribute() async throws {
        let problem = Self.problem(try await Self.written(["type": "t", "source": "/a", "id": "1"]).body)
        #expect(problem?.status == 400 && problem?.field == "heraldusers")
        #expect(Self.problem(try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": "u-1,,u-2"]).body)?.field == "heraldusers")
        #expect(Self.problem(try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": String(repeating: "u", count: 257)]).body)?.field == "heraldusers")
    }

    @Test func anotherSpecVersionATypeThatIsNoKindAndABadTimeAreRefused() async throws {
        let v03 = try await Self.written(["type": "t", "source": "/a", "id": "1", "heraldusers": "u", "specversion": "0.3"]).body
        #expect(Self.problem(v03)?.field == "specversion")
        #expect(Self.problem(try await Self.written(["type": "a type", "source": "/a", "id": "1", "heraldusers": "u"]).body)?.field == "type")
        #expect(Self.problem(Data(#"{"specversion":"1.0","type":"t","source":"/a","id":"1","heraldusers":"u","time":"yesterday"}"#.utf8))?.field == "time")
        #expect(Self.problem(Data(#"{"specversion":"1.0","type":"t","source":"/a","id":"1","heraldusers":"u","data":{},"data_base64":"AA=="}"#.utf8))?.field == "data_base64")
    }

    @Test(arguments: [
        ("2026-12-07T18:46:02Z", 1_796_669_162.0), ("2026-12-07T18:46:02.5Z", 1_796_669_162.5),
        ("2026-12-07t20:46:02+02:00", 1_796_669_162.0), ("2026-12-07T18:46:02.123456789-00:00", 1_796_669_162.123456789),
    ])
    func rfc3339TimesAreRead(_ text: String, _ seconds: Double) {
        #expect(abs((CloudEvent.rfc3339(text)?.timeIntervalSince1970 ?? 0) - seconds) < 0.000_01, "\(text)")
    }

    @Test func aTimeThatIsNotRFC3339IsNotRead() {
        for text in ["2026-12-07", "2026-12-07T18:46:02", "2026-12-07 18:46:02Z", "2026-12-07T18:46:02.Z"] { #expect(CloudEvent.rfc3339(text) == nil, "\(text)") }
    }
}
