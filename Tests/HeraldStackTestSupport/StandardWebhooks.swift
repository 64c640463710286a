import Foundation
import ProviderSandbox
import HeraldTestSupport

/// Verifies a forward the sandbox's webhook receiver got, as a tenant would, with the
/// Standard Webhooks reference library for Python (`Tests/Interop/verify_webhook.py`).
public enum StandardWebhooks {
    static let script = PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/verify_webhook.py").path

    /// Whether `receipt` verifies with `secret`; the payload the library returns, or its error.
    public static func verify(_ receipt: WebhookReceiver.Receipt, secret: String) async throws -> (verified: Bool, payload: [String: Any]?, error: String?) {
        var headers: [String: String] = [:]
        headers["webhook-id"] = receipt.webhookId
        headers["webhook-timestamp"] = receipt.timestamp
        headers["webhook-signature"] = receipt.signature
        let reply = try await PythonChecker.run(script, ["secret": secret, "body": receipt.body.base64EncodedString(), "headers": headers])
        return (reply["verified"] as? Bool == true, reply["payload"] as? [String: Any], reply["error"] as? String)
    }
}
