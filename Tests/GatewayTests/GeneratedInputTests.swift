import Foundation
import Gateway
import HeraldSources
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Testing

/// At least 1,000 random and mutated bodies per endpoint: never a 5xx, never a dropped
/// connection, and nothing published but what was accepted.
@Suite("Generated input", .serialized, .needs(.broker))
struct GeneratedInputTests {
    static let perEndpoint = 1000

    /// A valid body for each endpoint that takes one, and the path to call.
    static func sample(_ endpoint: Endpoint) -> (path: String, body: [String: Any]?) {
        switch endpoint.rawValue {
        case "postEvent": ("/events", ["id": "e", "source": "api", "kind": "k", "audience": ["users": ["u1"]], "data": ["a": "b"]])
        case "smartIDPush": ("/smartid/push", ["messageId": "m", "pushId": "p", "requestor": "r", "type": "AUTH", "timeToLive": 60])
        case "smartIDDevices": ("/smartid/devices", ["profileID": ["p1"], "OS": "iOS", "deviceID": "tok"])
        case "evernymNotify": ("/evernym/notify", ["msgId": "m", "msgType": "t", "sponseeDetails": "s", "relationshipDid": "d", "metaData": ["msgSenderName": "n"]])
        case "evernymSponsee": ("/evernym/sponsees/s1", ["id": "s1", "type": 4, "value": "FCM:t"])
        case "upstraEvents": ("/upstra/events", ["event": "message.created", "channel": ["id": "c", "displayName": "C"], "actor": ["id": "actor-1", "displayName": "A"], "message": ["type": "text", "text": "hi"], "recipients": ["u1"]])
        case "emailMessages": ("/email/messages", ["emailAddressId": "a", "sudoId": "s", "owner": "o", "messageId": "m", "from": "f", "subject": "x", "receivedAt": "2026-11-21T10:00:00Z"])
        case "emailAddressKey": ("/email/addresses/a1/key", ["keyId": "k", "publicKey": "MIIBIjANBgkq", "owner": "u1"])
        case "webcomEvents": ("/webcom/events", ["path": "/p", "event": "children.updated", "added": ["k": 1], "recipients": ["u1"]])
        case "putDevice": ("/devices/d1", ["platform": "fcm", "token": "t", "os": "android", "userId": "u1", "pushIds": ["p"], "locale": "en"])
        case "getEvent": ("/events/e1", nil)
        case "listEvents": ("/events?status=pending&limit=5", nil)
        case "getStats": ("/stats?window=1h", nil)
        case "listDevices": ("/devices?platform=fcm", nil)
        case "listUserDevices": ("/users/u1/devices", nil)
        case "getDevice", "deleteDevice": ("/devices/d1", nil)
        case "unregisterDevice": ("/devices/d1/unregister", ["token": "t"])
        case "listIngestURLs": ("/ingest-urls", nil)
        case "createIngestURL": ("/ingest-urls", ["id": "u1", "source": "evernym", "networks": ["10.0.0.0/8"]])
        case "rotateIngestURL": ("/ingest-urls/u1/secrets", nil)
        case "revokeIngestURL": ("/ingest-urls/u1", nil)
        case "revokeIngestSecret": ("/ingest-urls/u1/secrets/abcd1234", nil)
        case "getConfiguration": ("/devices/d1/configuration", nil)
        case "putConfiguration": ("/devices/d1/configuration", ["entries": [["service": "s", "enabled": false, "rule": ["field": "sudoId", "value": "v"]]]])
        case "getUserPreferences": ("/users/u1/preferences", nil)
        case "putUserPreferences": ("/users/u1/preferences", ["enabled": false, "mutedKinds": ["k"]])
        case "getChannelPreferences": ("/users/u1/channels/c1/preferences", nil)
        case "putChannelPreferences": ("/users/u1/channels/c1/preferences", ["enabled": true])
        case "getSettings": ("/settings/notifications", nil)
        case "putSettings": ("/settings/notifications", ["enabled": true])
        // Herald's own providers serve no resource yet: no route, 404 (ProviderResourceTests serves one).
        case "getProviderResource": ("/webpush/vapid-public-key", nil)
        default:
            // A source's route: its own sample (every new source's route is fuzzed too).
            (endpoint.route.path, SourceRegistry.herald.samples.first { $0.path == endpoint.route.path }.flatMap {
                try? $0.body(SampleTarget(pushId: "p", user: "u1", sponsee: "s", address: "a1"), "e", Date())
            } ?? [:])
        }
    }

    nonisolated(unsafe) static let strange: [Any] = [
        NSNull(), 0, -1, 1.5, 1e300, true, false, "", " ", "ünïcödé 🎉", String(repeating: "x", count: 5000), "\u{0}\u{1}\"\\",
        [Any](), ["a"], [1, 2], [String: Any](), ["k": "v"], ["nested": ["deep": [1, ["x": NSNull()]]]],
    ]

    /// One generated body: a mutation of the sample, a random JSON value, or broken bytes.
    static func generate(_ sample: [String: Any]?, _ n: Int, using random: inout SystemRandomNumberGenerator) -> Data {
        func mutate(_ object: [String: Any]) -> [String: Any] {
            var object = object
            let keys = Array(object.keys)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !keys.isEmpty: object.removeValue(forKey: keys.randomElement(using: &random)!)
            case 1 where !keys.isEmpty: object[keys.randomElement(using: &random)!] = strange.randomElement(using: &random)!
            case 2: object["extra\(n)"] = strange.randomElement(using: &random)!
            case 3 where !keys.isEmpty:
                let key = keys.randomElement(using: &random)!
                if let nested = object[key] as? [String: Any] { object[key] = mutate(nested) } else { object[key] = "\(n)-\(UUID().uuidString)" }
            default: object[keys.randomElement(using: &random) ?? "k"] = String(repeating: "é", count: Int.random(in: 0..<300, using: &random))
            }
            return object
        }
        let kind = n % 10
        if kind < 6, let sample {
            var body = sample
            for _ in 0...Int.random(in: 0..<3, using: &random) { body = mutate(body) }
            return (try? JSONSerialization.data(withJSONObject: body, options: [.fragmentsAllowed])) ?? Data("{".utf8)
        }
        if kind < 8 {
            let value = strange.randomElement(using: &random)!
            return (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8)
        }
        var bytes = sample.flatMap { try? JSONSerialization.data(withJSONObject: $0) } ?? Data("{}".utf8)
        if kind == 8 { bytes = bytes.prefix(Int.random(in: 0..<max(1, bytes.count), using: &random)) } else {
            bytes = Data((0..<Int.random(in: 1..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        return bytes
    }

    @Test(arguments: Endpoint.all(.herald))
    func randomAndMutatedBodiesNeverCauseA5xxAndOnlyAcceptedEventsArePublished(_ endpoint: Endpoint) async throws {
        let gateway = try await GatewayFixture()
        let answers: [(status: Int, eventId: String?)] = await withTaskGroup(of: [(status: Int, eventId: String?)].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let (path, sample) = Self.sample(endpoint)
                    var random = SystemRandomNumberGenerator()
                    var results: [(status: Int, eventId: String?)] = []
                    for n in stride(from: worker, to: Self.perEndpoint, by: 8) {
                        let body = endpoint.method == "GET" || endpoint.method == "DELETE" ? nil : Self.generate(sample, n, using: &random)
                        let answer = await gateway.send(endpoint.method, "/v1/apps/{app}" + path, body: body)
                        results.append((answer.status, answer.status == 202 ? answer.json["eventId"] as? String : nil))
                    }
                    return results
                }
            }
            var all: [(status: Int, eventId: String?)] = []
            for await part in group { all += part }
            return all
        }
        #expect(answers.count == Self.perEndpoint)
        let bad = answers.filter { $0.status >= 500 || $0.status == 0 }
        #expect(bad.isEmpty, "\(bad.count) answers were 5xx or no answer: \(Set(bad.map(\.status)))")
        let statuses = Set(answers.map(\.status))
        #expect(statuses.isSubset(of: [200, 201, 202, 400, 404, 409, 413, 422]), "\(statuses.sorted())")

        // A last accepted event proves that everything published before it has arrived.
        let sentinel = "sentinel-\(UUID().uuidString)"
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Data(#"{"messageId":"\#(sentinel)","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)).status == 202)
        try await gateway.waitForEvents(timeout: .seconds(30), "the sentinel") { $0.contains { $0.id == smartIDEventId(messageId: sentinel, pushId: "p") } }
        let published = Set(try await gateway.published().map(\.id)).subtracting([smartIDEventId(messageId: sentinel, pushId: "p")])
        #expect(published == Set(answers.compactMap(\.eventId)), "published exactly the accepted events")
        if !endpoint.publishes { #expect(published.isEmpty) }
        await gateway.stop()
    }
}
