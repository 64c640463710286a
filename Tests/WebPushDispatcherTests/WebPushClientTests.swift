import Crypto
import DispatchKit
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import ProviderSandbox
import Testing
import WebPush
import WebPushEmulation

/// herald-webpush's client against the sandbox's push service: what it posts (RFC 8030's
/// headers, RFC 8291's body, RFC 8292's VAPID token), and what each answer means.
struct WebPushClientTests {
    @Test func aPushIsDeliveredAndTheSubscriptionsKeysDecryptIt() async throws {
        let sandbox = try await TestSandbox.start()
        let (client, transport) = try sandbox.webPushClient()
        let subscription = try sandbox.webPushSubscription()
        let result = await client.send(try subscription.request(["herald": "1", "event": "e-1", "alert": "{\"title\":\"Hi\"}"]))
        #expect(result == .delivered(providerId: nil), "\(result)")
        let received = sandbox.state.messages(provider: "webpush", token: subscription.endpoint)
        #expect(received.count == 1)
        #expect(received.first?.message["event"] as? String == "e-1" && received.first?.message["herald"] as? String == "1")
        #expect(received.first?.headers?["ttl"] == "60" && received.first?.headers?["urgency"] == "normal")
        #expect(received.first?.app == "mailto:tests@herald.example", "the VAPID token's sub")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aCriticalPushIsUrgentAndACollapsingOneHasATopic() async throws {
        let sandbox = try await TestSandbox.start()
        let (client, transport) = try sandbox.webPushClient()
        let subscription = try sandbox.webPushSubscription()
        #expect(await client.send(try subscription.request(["herald": "1"], priority: .high, collapseKey: "board-1")) == .delivered(providerId: nil))
        #expect(await client.send(try subscription.request(["herald": "1"], collapseKey: "/boards/1/a path longer than thirty-two characters")) == .delivered(providerId: nil))
        let headers = sandbox.state.messages(provider: "webpush").compactMap(\.headers)
        #expect(headers.count == 2)
        #expect(headers.first?["urgency"] == "high" && headers.first?["topic"] == "board-1")
        let hashed = try #require(headers.last?["topic"])
        #expect(hashed.count == 32 && hashed.utf8.allSatisfy { WebPushEmulatorAlphabet.contains($0) }, "\(hashed)")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aGoneSubscriptionIsRevoked() async throws {
        let sandbox = try await TestSandbox.start()
        let (client, transport) = try sandbox.webPushClient()
        let subscription = try sandbox.webPushSubscription(rule: "unregistered-")
        let result = await client.send(try subscription.request(["herald": "1"]))
        guard case .revoked(let code, _, _) = result else { Issue.record("\(result)"); return }
        #expect(code.raw == "HTTP_410")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aThrottledPushIsRetriedNoSoonerThanRetryAfter() async throws {
        let sandbox = try await TestSandbox.start()
        let (client, transport) = try sandbox.webPushClient()
        let subscription = try sandbox.webPushSubscription(rule: "quota-1-after-2-")
        let result = await client.send(try subscription.request(["herald": "1"]))
        guard case .retry(let code, _, let after) = result else { Issue.record("\(result)"); return }
        #expect(code.raw == "HTTP_429" && after == .seconds(2))
        #expect(await client.send(try subscription.request(["herald": "1"])) == .delivered(providerId: nil), "the rule's one 429 is spent")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aPushServiceOnAPrivateAddressIsRefusedUnlessTheAppAllowsIt() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "webpush-test", caFile: sandbox.caFile))
        let key = try VAPIDKey(pemFile: sandbox.directory.appendingPathComponent("webpush-vapid.pem").path)
        let client = WebPushClient(app: "demo", key: key, subject: "mailto:tests@herald.example", allowPrivateNetworks: false, transport: transport)
        let subscription = try sandbox.webPushSubscription()
        let result = await client.send(try subscription.request(["herald": "1"]))
        guard case .failed(let code, let reason) = result else { Issue.record("\(result)"); return }
        #expect(code.raw == DispatchCode.addressRefused.rawValue && reason.contains("allowPrivateNetworks"), "\(reason)")
        #expect(sandbox.state.sendAttempts(provider: "webpush", token: subscription.endpoint) == 0)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aDeliveryWithoutAnEncryptedMessageFailsWithoutASend() async throws {
        let sandbox = try await TestSandbox.start()
        let (client, transport) = try sandbox.webPushClient()
        let subscription = try sandbox.webPushSubscription()
        var request = try subscription.request(["herald": "1"])
        request.data = ["herald": "1", "event": "e"]
        let result = await client.send(request)
        #expect(result.code?.raw == DispatchCode.encoding.rawValue, "\(result)")
        #expect(sandbox.state.sendAttempts(provider: "webpush", token: subscription.endpoint) == 0)
        await transport.close()
        await sandbox.stop()
    }

    @Test func theVAPIDTokenNamesTheOriginAndIsKeptUntilSixHoursAreLeft() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID()).pem")
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let key = try VAPIDKey(pemFile: file.path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let endpoint = try #require(URL(string: "https://push.example.com:8443/wpush/v2/abc"))
        let first = try key.authorization(endpoint: endpoint, subject: "mailto:ops@example.com", now: now)
        let token = try #require(first.split(separator: " ").dropFirst().first.map { String($0.dropFirst(2).dropLast()) })
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(claims["aud"] as? String == "https://push.example.com:8443")
        #expect(claims["exp"] as? Int == 1_800_000_000 + 12 * 3600 && claims["sub"] as? String == "mailto:ops@example.com")
        #expect(first.hasSuffix(", k=\(key.publicKey)"))
        #expect(try key.authorization(endpoint: endpoint, subject: "mailto:ops@example.com", now: now.addingTimeInterval(5 * 3600)) == first)
        #expect(try key.authorization(endpoint: endpoint, subject: "mailto:ops@example.com", now: now.addingTimeInterval(7 * 3600)) != first)
        let other = try #require(URL(string: "https://other.example.net/x"))
        #expect(try key.authorization(endpoint: other, subject: "mailto:ops@example.com", now: now) != first, "a token per origin")
    }
}

/// The base64url alphabet's bytes.
let WebPushEmulatorAlphabet = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))

/// The sandbox's push service refuses what a push service refuses (RFC 8292, RFC 8030).
struct WebPushEmulatorTests {
    static func token(_ key: P256.Signing.PrivateKey, claims: [String: Any]) throws -> String {
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let input = header + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    @Test func aPushWithoutAValidVAPIDTokenIsRefused401() async throws {
        let sandbox = try await TestSandbox.start()
        let subscription = try sandbox.webPushSubscription()
        let origin = try #require(URL(string: subscription.endpoint)).absoluteString.components(separatedBy: "/webpush/")[0]
        let key = P256.Signing.PrivateKey()
        let k = Base64URL.encode(key.publicKey.x963Representation)
        let now = Int(Date().timeIntervalSince1970)
        let body = try #require(try subscription.request(["herald": "1"]).data["payload"].flatMap(Base64URL.decode))
        func push(_ authorization: String?) -> Int {
            var headers = ["ttl": "60", "content-encoding": "aes128gcm"]
            headers["authorization"] = authorization
            let path = String(subscription.endpoint.dropFirst(origin.count))
            return sandbox.running.sandbox.handle(SandboxRequest(method: "POST", target: path, headers: headers, body: body)).status
        }
        #expect(push(nil) == 401)
        #expect(push("vapid t=\(try Self.token(key, claims: ["aud": "https://elsewhere.example", "exp": now + 3600, "sub": "mailto:a@b.c"])), k=\(k)") == 401)
        #expect(push("vapid t=\(try Self.token(key, claims: ["aud": origin, "exp": now + 25 * 3600, "sub": "mailto:a@b.c"])), k=\(k)") == 401)
        #expect(push("vapid t=\(try Self.token(key, claims: ["aud": origin, "exp": now + 3600, "sub": "a@b.c"])), k=\(k)") == 401)
        #expect(push("vapid t=\(try Self.token(P256.Signing.PrivateKey(), claims: ["aud": origin, "exp": now + 3600, "sub": "mailto:a@b.c"])), k=\(k)") == 401)
        #expect(push("vapid t=\(try Self.token(key, claims: ["aud": origin, "exp": now + 3600, "sub": "mailto:a@b.c"])), k=\(k)") == 201)
        #expect(sandbox.state.messages(provider: "webpush").count == 1)
        await sandbox.stop()
    }
}
