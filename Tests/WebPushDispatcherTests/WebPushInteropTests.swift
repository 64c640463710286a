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

/// Web Push against independent implementations: pywebpush, a reference application server,
/// sends to the sandbox's push service; herald-webpush's client sends to a push service
/// written from the RFCs in Python, which checks the VAPID token with py_vapid and joserfc
/// and decrypts with http_ece (Interop/push_service.py).
@Suite(.needs(.python))
struct WebPushInteropTests {
    static let interop = PythonChecker.packageRoot.appendingPathComponent("Tests/WebPushDispatcherTests/Interop")

    @Test func pywebpushIsAcceptedByTheSandboxsPushServiceWhichDecryptsItsMessage() async throws {
        let sandbox = try await TestSandbox.start()
        let subscription = try sandbox.webPushSubscription()
        let message = #"{"alert":{"title":"Ann (General)","body":"Hello"},"herald":"1"}"#
        let reply = try await PythonChecker.run(Self.interop.appendingPathComponent("pywebpush_sender.py").path, [
            "subscription": ["endpoint": subscription.endpoint, "keys": ["p256dh": subscription.p256dh, "auth": subscription.auth]],
            "data": message, "vapidKeyFile": sandbox.directory.appendingPathComponent("webpush-vapid.pem").path,
            "subject": "mailto:interop@herald.example", "caFile": sandbox.caFile, "ttl": 120,
        ])
        #expect(reply["status"] as? Int == 201, "\(reply)")
        let received = sandbox.state.messages(provider: "webpush", token: subscription.endpoint)
        #expect(received.count == 1)
        #expect(received.first?.delivered.map { String(decoding: $0, as: UTF8.self) } == message)
        #expect(received.first?.app == "mailto:interop@herald.example" && received.first?.headers?["ttl"] == "120")
        await sandbox.stop()
    }

    @Test func heraldsPushesAreAcceptedByAPushServiceWrittenFromTheRFCs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-interop-\(UUID())")
        let certificates = try SandboxCertificates.generate()
        try certificates.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vapidFile = directory.appendingPathComponent("vapid.pem")
        try Data(Crypto.P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: vapidFile)
        let browser = WebPushPrivateKey.generate()
        let port = try freePort()
        let origin = "https://localhost:\(port)"
        let subscription = WebPushTestSubscription(
            endpoint: origin + "/push/sub", p256dh: Base64URL.encode(browser.publicKey.publicKeyBytes), auth: Base64URL.encode(browser.authSecret))
        async let seen = PythonChecker.run(Self.interop.appendingPathComponent("push_service.py").path, [
            "port": port, "certificate": directory.appendingPathComponent("server.pem").path,
            "key": directory.appendingPathComponent("server-key.pem").path,
            "privateKey": Base64URL.encode(browser.rawPrivateKey), "auth": Base64URL.encode(browser.authSecret),
            "origin": origin, "count": 2, "answers": [201, 410], "timeout": 60,
        ])
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(
            name: "webpush-interop", connectTimeout: TestSandbox.connectTimeout, caFile: directory.appendingPathComponent("ca.pem").path))
        let client = WebPushClient(app: "demo", key: try VAPIDKey(pemFile: vapidFile.path), subject: "mailto:ops@herald.example",
                                   allowPrivateNetworks: true, transport: transport)
        let message = ["herald": "1", "event": "e-interop", "kind": "message.created"]
        // Until the stand-in listens, a send gets no answer at all (a transport retry).
        var first = SendResult.held(reason: "not sent", retryAfter: .zero)
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            first = await client.send(try subscription.request(message, priority: .high, collapseKey: "general"))
            if case .retry(let code, _, _) = first, code.raw == DispatchCode.transport.rawValue, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            break
        } while true
        #expect(first == .delivered(providerId: nil), "\(first)")
        let second = await client.send(try subscription.request(message))
        guard case .revoked(let code, _, _) = second else { Issue.record("a 410 must revoke: \(second)"); return }
        #expect(code.raw == "HTTP_410")
        let pushes = try #require(try await seen["pushes"] as? [[String: Any]])
        #expect(pushes.count == 2)
        for push in pushes {
            #expect(push["vapid"] as? String == "ok", "\(push)")
            let plaintext = try #require(push["plaintext"] as? String, "\(push)")
            #expect(try JSONSerialization.jsonObject(with: Data(plaintext.utf8)) as? [String: String] == message)
            let headers = try #require(push["headers"] as? [String: String])
            #expect(headers["content-encoding"] == "aes128gcm" && headers["ttl"] == "60", "\(headers)")
        }
        let headers = pushes.first?["headers"] as? [String: String]
        #expect(headers?["urgency"] == "high" && headers?["topic"] == "general", "\(headers ?? [:])")
        await transport.close()
    }
}
