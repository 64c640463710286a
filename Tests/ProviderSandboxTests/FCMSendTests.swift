import Foundation
import ProviderSandbox
import Testing

@Suite("FCM messages:send")
struct FCMSendTests {
    static var message: [String: Any] {
        [
        "token": "device-token-1", "data": ["herald": "1", "event": "e1"],
        "notification": ["title": "Hi", "body": "There"],
        "android": ["priority": "HIGH", "ttl": "3600s", "collapse_key": "chat"],
        "apns": ["headers": ["apns-priority": "10"], "payload": ["aps": ["mutable-content": 1]]],
        ]
    }

    @Test("a valid message is accepted with its name, over HTTP/2, and lands in the inbox")
    func success() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        let answer = try await client.sendFCM(Self.message, token: token)
        #expect(answer.status == 200)
        #expect(answer.httpVersion == "2")
        let name = try #require(answer.json["name"] as? String)
        #expect(name.hasPrefix("projects/herald-demo/messages/0:"))
        let inbox = client.running.sandbox.state.messages(provider: "fcm", token: "device-token-1")
        #expect(inbox.count == 1)
        #expect(inbox.first?.app == "herald-demo")
        #expect(name.hasSuffix(inbox.first!.id))
        await client.stop()
    }

    @Test("plain HTTP/1.1 serves the same API")
    func plainHTTP() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        let answer = try await client.request("POST", "/v1/projects/herald-demo/messages:send", body: client.json(["message": Self.message]), bearer: token, secure: false)
        #expect(answer.status == 200 && answer.httpVersion == "1.1")
        await client.stop()
    }

    @Test("validate_only checks the message without sending it")
    func validateOnly() async throws {
        let client = try await SandboxClient.start()
        let answer = try await client.sendFCM(Self.message, token: try await client.fcmAccessToken(), validateOnly: true)
        #expect(answer.status == 200 && answer.json["name"] as? String == "projects/herald-demo/messages/fake_message_id")
        #expect(client.running.sandbox.state.messages().isEmpty)
        await client.stop()
    }

    @Test("missing, unknown and expired bearer tokens answer 401 UNAUTHENTICATED without an FCM error code")
    func unauthenticated() async throws {
        let client = try await SandboxClient.start(SandboxConfiguration(httpsPort: 0, tokenLifetime: 0.000_001))
        let expired = try await client.fcmAccessToken()
        for bearer in [nil, "ya29.made-up", expired] {
            let answer = try await client.request("POST", "/v1/projects/herald-demo/messages:send", body: client.json(["message": Self.message]), bearer: bearer)
            #expect(answer.status == 401)
            let error = answer.json["error"] as? [String: Any]
            #expect(error?["status"] as? String == "UNAUTHENTICATED")
            #expect(error?["details"] == nil, "a 401 for the access token carries no FcmError")
        }
        await client.stop()
    }

    @Test("a token of one project cannot send for another")
    func otherProject() async throws {
        let client = try await SandboxClient.start()
        let answer = try await client.sendFCM(Self.message, token: try await client.fcmAccessToken(), project: "someone-else")
        #expect(answer.status == 403)
        #expect((answer.json["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
        await client.stop()
    }

    static var invalidMessages: [(String, [String: Any], String)] {
        [
        ("no target", ["data": ["a": "b"]], "Recipient of the message is not set."),
        ("two targets", ["token": "t", "topic": "news"], "Oneof field 'target' is already set"),
        ("an unknown field", ["token": "t", "priority": "high"], "Unknown name \"priority\" at 'message'"),
        ("a non-string data value", ["token": "t", "data": ["count": 1]], "Invalid value at 'message.data[0].value' (TYPE_STRING), 1"),
        ("a reserved data key", ["token": "t", "data": ["from": "x"]], "Invalid data payload key: from is reserved."),
        ("a google. data key", ["token": "t", "data": ["google.x": "y"]], "google.x is reserved"),
        ("a malformed ttl", ["token": "t", "android": ["ttl": "1 day"]], "Invalid value at 'message.android.ttl'"),
        ("a ttl over four weeks", ["token": "t", "android": ["ttl": "2419201s"]], "must be between 0s and 2419200s"),
        ("an unknown priority", ["token": "t", "android": ["priority": "URGENT"]], "Invalid value at 'message.android.priority'"),
        ("data over 4096 bytes", ["token": "t", "data": ["k": String(repeating: "x", count: 4096)]], "the limit is 4096"),
        ("topic data over 2048 bytes", ["topic": "news", "data": ["k": String(repeating: "x", count: 2048)]], "the limit is 2048"),
        ("an empty token", ["token": ""], "not a valid FCM registration token"),
        ("a bad APNs priority", ["token": "t", "apns": ["headers": ["apns-priority": "7"]]], "apns-priority"),
        ]
    }

    @Test("invalid messages answer 400 INVALID_ARGUMENT with a precise message", arguments: invalidMessages.map(\.0))
    func invalid(name: String) async throws {
        let (_, message, expected) = try #require(Self.invalidMessages.first { $0.0 == name })
        let client = try await SandboxClient.start()
        let answer = try await client.sendFCM(message, token: try await client.fcmAccessToken())
        #expect(answer.status == 400)
        let error = answer.json["error"] as? [String: Any]
        #expect(error?["status"] as? String == "INVALID_ARGUMENT")
        #expect((error?["message"] as? String)?.contains(expected) == true, "\(answer.text)")
        let fcmError = (error?["details"] as? [[String: Any]])?.first { $0["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }
        #expect(fcmError?["errorCode"] as? String == "INVALID_ARGUMENT")
        #expect(client.running.sandbox.state.messages().isEmpty)
        await client.stop()
    }

    @Test("edge values FCM accepts are accepted")
    func acceptedEdges() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        for message: [String: Any] in [
            ["token": "t", "android": ["ttl": "3.5s", "priority": "high"]],
            ["token": "t", "android": ["ttl": "2419200.000000000s"]],
            ["token": "t", "data": ["k": String(repeating: "x", count: 4095)]],
            ["topic": "news", "fcmOptions": ["analytics_label": "x"]],
        ] {
            let answer = try await client.sendFCM(message, token: token)
            #expect(answer.status == 200, "\(message): \(answer.text)")
        }
        let body = try await client.request("POST", "/v1/projects/herald-demo/messages:send", body: Data("{not json".utf8), bearer: token)
        #expect(body.status == 400)
        await client.stop()
    }
}

@Suite("FCM token rules")
struct FCMTokenRuleTests {
    static let cases: [(token: String, status: Int, errorCode: String, retryAfter: Bool)] = [
        ("unregistered-abc", 404, "UNREGISTERED", false),
        ("mismatch-abc", 403, "SENDER_ID_MISMATCH", false),
        ("invalid-abc", 400, "INVALID_ARGUMENT", false),
        ("thirdparty-abc", 401, "THIRD_PARTY_AUTH_ERROR", false),
        ("quota-abc", 429, "QUOTA_EXCEEDED", true),
        ("unavailable-abc", 503, "UNAVAILABLE", true),
        ("internal-abc", 500, "INTERNAL", false),
        ("unspecified-abc", 500, "UNSPECIFIED_ERROR", false),
        ("authfail-abc", 500, "INTERNAL", false),
        ("ttlexpired-abc", 400, "INVALID_ARGUMENT", false),
    ]

    @Test("each rule answers as FCM does", arguments: cases.map(\.token))
    func rule(token: String) async throws {
        let expected = try #require(Self.cases.first { $0.token == token })
        let client = try await SandboxClient.start()
        let answer = try await client.sendFCM(["token": token], token: try await client.fcmAccessToken())
        #expect(answer.status == expected.status)
        let details = ((answer.json["error"] as? [String: Any])?["details"] as? [[String: Any]]) ?? []
        #expect(details.contains { $0["errorCode"] as? String == expected.errorCode }, "\(answer.text)")
        #expect((answer.headers["retry-after"] == "1") == expected.retryAfter)
        await client.stop()
    }

    @Test("unavailable-3- fails three times with Retry-After, then succeeds")
    func countedFailures() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        var statuses: [Int] = []
        for _ in 0..<4 {
            let answer = try await client.sendFCM(["token": "after-7-unavailable-3-device"], token: token)
            statuses.append(answer.status)
            if answer.status == 503 { #expect(answer.headers["retry-after"] == "7") }
        }
        #expect(statuses == [503, 503, 503, 200])
        await client.stop()
    }

    @Test("slow-200- answers after at least 200 ms")
    func slow() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        let started = ContinuousClock.now
        let answer = try await client.sendFCM(["token": "slow-200-device"], token: token)
        #expect(answer.status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        await client.stop()
    }

    @Test("prefixes parse and combine")
    func parsing() {
        #expect(TokenRule(token: "plain").failure == nil)
        #expect(TokenRule(token: "unavailable-3-x").failure == .unavailable(times: 3))
        #expect(TokenRule(token: "unavailable-x").failure == .unavailable(times: nil))
        let combined = TokenRule(token: "slow-150-after-9-quota-2-x")
        #expect(combined.delayMilliseconds == 150 && combined.retryAfterSeconds == 9 && combined.failure == .quota(times: 2))
        #expect(TokenRule(token: "slow-x").delayMilliseconds == 0)
        #expect(TokenRule(token: "authfail-2-x").failure == .authServiceFailed(times: 2))
        #expect(TokenRule(token: "ttlexpired-x").failure == .ttlExpired)
    }
}
