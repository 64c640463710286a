import Foundation
import ProviderSandbox
import HeraldTestSupport

/// A browser's subscription to the sandbox's push service, as `PushSubscription.toJSON()`
/// gives it: what a test registers as a Web Push device.
public struct WebPushTestSubscription: Sendable {
    public let endpoint: String
    public let p256dh: String
    public let auth: String

    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The subscription as a registration's `subscription` field.
    public var json: [String: Any] { ["endpoint": endpoint, "expirationTime": NSNull(), "keys": ["p256dh": p256dh, "auth": auth]] }
}

extension TestSandbox {
    /// A new subscription to the sandbox's push service; `rule` is a token rule its id carries
    /// (`unregistered-`, `quota-1-after-1-`, …).
    public func webPushSubscription(rule: String = "") throws -> WebPushTestSubscription {
        let reply = running.sandbox.handle(SandboxRequest(
            method: "POST", target: "/webpush/subscriptions", headers: ["content-type": "application/json"],
            body: try JSONSerialization.data(withJSONObject: ["rule": rule])))
        guard reply.status == 201, let json = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
              let endpoint = json["endpoint"] as? String, let keys = json["keys"] as? [String: String],
              let p256dh = keys["p256dh"], let auth = keys["auth"] else {
            throw TestFailure("the sandbox made no subscription: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return WebPushTestSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
    }
}
