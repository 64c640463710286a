import Foundation
import ProviderSandbox
import Testing

@Suite("Push Kit OAuth and messages:send")
struct HMSTests {
    static var message: [String: Any] {
        ["data": #"{"herald":"1","event":"e1"}"#, "android": ["urgency": "HIGH", "ttl": "86400s", "collapse_key": 1]]
    }

    @Test("client credentials get a bearer token; a wrong secret, an unknown client or another grant do not")
    func oauth() async throws {
        let client = try await SandboxClient.start()
        let ok = try await client.hmsTokenRequest()
        #expect(ok.status == 200 && (ok.json["access_token"] as? String)?.isEmpty == false && ok.json["expires_in"] as? Int == 3600)
        let wrongSecret = try await client.hmsTokenRequest(secret: "nope")
        #expect(wrongSecret.status == 400 && wrongSecret.json["error_description"] as? String == "invalid client_secret")
        let unknown = try await client.hmsTokenRequest(clientId: "999")
        #expect(unknown.status == 400 && unknown.json["error_description"] as? String == "invalid client_id")
        let grant = try await client.hmsTokenRequest(grantType: "password")
        #expect(grant.status == 400 && grant.json["error"] as? Int == 1101)
        await client.stop()
    }

    @Test("a message to several tokens succeeds with 80000000 and each token lands in the inbox")
    func success() async throws {
        let client = try await SandboxClient.start()
        var message = Self.message
        message["token"] = ["hms-1", "hms-2"]
        let answer = try await client.sendHMS(message, token: try await client.hmsAccessToken())
        #expect(answer.status == 200 && answer.httpVersion == "2")
        #expect(answer.json["code"] as? String == "80000000" && answer.json["msg"] as? String == "Success")
        let inbox = client.running.sandbox.state.messages(provider: "hms")
        #expect(inbox.map(\.token) == ["hms-1", "hms-2"])
        #expect(inbox.allSatisfy { $0.app == client.hmsClient.clientId })
        await client.stop()
    }

    @Test("some illegal tokens: 80100000 lists them, the others are delivered")
    func partlyIllegal() async throws {
        let client = try await SandboxClient.start()
        var message = Self.message
        message["token"] = ["good-1", "unregistered-2", "invalid-3", "good-4"]
        let answer = try await client.sendHMS(message, token: try await client.hmsAccessToken())
        #expect(answer.status == 200 && answer.json["code"] as? String == "80100000")
        let detail = try #require((answer.json["msg"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(detail["illegal_tokens"] as? [String] == ["unregistered-2", "invalid-3"])
        #expect(detail["success"] as? Int == 2 && detail["failure"] as? Int == 2)
        #expect(client.running.sandbox.state.messages(provider: "hms").map(\.token) == ["good-1", "good-4"])
        await client.stop()
    }

    @Test("only illegal tokens: 80300007")
    func allIllegal() async throws {
        let client = try await SandboxClient.start()
        var message = Self.message
        message["token"] = ["unregistered-1", "invalid-2"]
        let answer = try await client.sendHMS(message, token: try await client.hmsAccessToken())
        #expect(answer.json["code"] as? String == "80300007")
        #expect(client.running.sandbox.state.messages().isEmpty)
        await client.stop()
    }

    @Test("authentication failures: none, unknown, expired, another app")
    func authentication() async throws {
        let client = try await SandboxClient.start(SandboxConfiguration(httpsPort: 0, tokenLifetime: 0.000_001))
        var message = Self.message
        message["token"] = ["t"]
        let expired = try await client.hmsAccessToken()
        let cases: [(String?, String?, Int, String)] = [
            (nil, nil, 401, "80200001"), ("made-up", nil, 401, "80200001"), (expired, nil, 401, "80200003"),
        ]
        for (bearer, app, status, code) in cases {
            let answer = try await client.request("POST", "/v1/\(app ?? client.hmsClient.clientId)/messages:send", body: client.json(["message": message]), bearer: bearer)
            #expect(answer.status == status && answer.json["code"] as? String == code, "\(answer.text)")
        }
        await client.stop()
        let fresh = try await SandboxClient.start()
        let other = try await fresh.sendHMS(message, token: try await fresh.hmsAccessToken(), app: "424242")
        #expect(other.status == 403 && other.json["code"] as? String == "80300002")
        await fresh.stop()
    }

    static var invalid: [(String, [String: Any], String)] {
        [
            ("no target", ["data": "x"], "80100001"),
            ("two targets", ["token": ["t"], "topic": "news"], "80100001"),
            ("tokens not a list", ["token": "t"], "80100001"),
            ("no tokens", ["token": [String]()], "80100001"),
            ("too many tokens", ["token": (0...1000).map { "t\($0)" }], "80300010"),
            ("data not a string", ["token": ["t"], "data": ["a": "b"]], "80100001"),
            ("collapse_key out of range", ["token": ["t"], "android": ["collapse_key": 101]], "80100001"),
            ("collapse_key a boolean", ["token": ["t"], "android": ["collapse_key": true]], "80100001"),
            ("unknown urgency", ["token": ["t"], "android": ["urgency": "LOW"]], "80100001"),
            ("malformed ttl", ["token": ["t"], "android": ["ttl": "one day"]], "80100001"),
            ("body over 4096 bytes", ["token": ["t"], "data": String(repeating: "x", count: 4100)], "80300008"),
        ]
    }

    @Test("invalid messages answer with Push Kit's codes", arguments: invalid.map(\.0))
    func invalidMessage(name: String) async throws {
        let (_, message, code) = try #require(Self.invalid.first { $0.0 == name })
        let client = try await SandboxClient.start()
        let answer = try await client.sendHMS(message, token: try await client.hmsAccessToken())
        #expect(answer.status == 400 && answer.json["code"] as? String == code, "\(answer.text)")
        await client.stop()
    }

    @Test("a body that is not a message structure: 80100003")
    func badStructure() async throws {
        let client = try await SandboxClient.start()
        let answer = try await client.request("POST", "/v1/\(client.hmsClient.clientId)/messages:send", body: Data(#"{"msg":{}}"#.utf8), bearer: try await client.hmsAccessToken())
        #expect(answer.status == 400 && answer.json["code"] as? String == "80100003")
        await client.stop()
    }

    @Test("unavailable-2- answers 503 with Retry-After twice, then succeeds; internal- answers 500 81000001")
    func transientFailures() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.hmsAccessToken()
        var message = Self.message
        message["token"] = ["ok", "unavailable-2-x"]
        var statuses: [Int] = []
        for _ in 0..<3 {
            let answer = try await client.sendHMS(message, token: token)
            statuses.append(answer.status)
            if answer.status == 503 { #expect(answer.headers["retry-after"] == "1") }
        }
        #expect(statuses == [503, 503, 200])
        message["token"] = ["internal-x"]
        let internalError = try await client.sendHMS(message, token: token)
        #expect(internalError.status == 500 && internalError.json["code"] as? String == "81000001")
        message["token"] = ["authfail-1-x"]
        let oauth = try await client.sendHMS(message, token: token)
        #expect(oauth.status == 500 && oauth.json["code"] as? String == "80600003")
        #expect(try await client.sendHMS(message, token: token).json["code"] as? String == "80000000")
        await client.stop()
    }

    @Test("a message whose time to live is over: 80100004")
    func ttlExpired() async throws {
        let client = try await SandboxClient.start()
        var message = Self.message
        message["token"] = ["ttlexpired-x"]
        let answer = try await client.sendHMS(message, token: try await client.hmsAccessToken())
        #expect(answer.status == 400 && answer.json["code"] as? String == "80100004")
        await client.stop()
    }
}
