import DispatchKit
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import ProviderSandbox
import WebPush

extension WebPushTestSubscription {
    /// A delivery of `message` (encrypted for this subscription, as the encryption stage does).
    func request(_ message: [String: String], id: String = UUID().uuidString, priority: Priority = .normal, collapseKey: String? = nil) throws -> DispatchRequest {
        let plaintext = try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])
        let body = try WebPushEncryption.encrypt(plaintext, to: WebPushKey(p256dh: p256dh, auth: auth))
        return DispatchRequest(
            deliveryId: id, eventId: "e-\(id)", app: "demo", kind: "test", platform: .webpush, deviceId: "d-\(id)",
            token: endpoint, os: .web, data: ["enc": "aes128gcm", "kid": "subscription", "payload": Base64URL.encode(body)],
            ttlSeconds: 60, priority: priority, collapseKey: collapseKey)
    }
}

extension TestSandbox {
    /// The sandbox's demo VAPID key file, the client of app `demo` with it, and its transport.
    func webPushClient(subject: String = "mailto:tests@herald.example", now: @escaping @Sendable () -> Date = Date.init) throws -> (WebPushClient, HTTPTransport) {
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "webpush-test", connectTimeout: TestSandbox.connectTimeout, caFile: caFile))
        let key = try VAPIDKey(pemFile: directory.appendingPathComponent("webpush-vapid.pem").path)
        return (WebPushClient(app: "demo", key: key, subject: subject, allowPrivateNetworks: true, transport: transport, now: now), transport)
    }
}
