import Foundation
import HeraldTestSupport
import Testing
import Webhook

/// Standard Webhooks signing, checked against the specification's example and the reference
/// library for Python.
@Suite struct WebhookSignerTests {
    @Test func theSignatureMatchesTheStandardWebhooksExample() throws {
        // The example of the Standard Webhooks libraries' tests.
        let signer = try WebhookSigner(secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        let signature = signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func twoSecretsGiveTwoSignaturesSeparatedByASpace() throws {
        let new = WebhookSigner.generateSecret()
        let old = WebhookSigner.generateSecret()
        let body = Data("{}".utf8)
        let both = try WebhookSigner(secrets: [new, old]).signature(id: "m", timestamp: 1, body: body)
        let first = try WebhookSigner(secrets: [new]).signature(id: "m", timestamp: 1, body: body)
        let second = try WebhookSigner(secrets: [old]).signature(id: "m", timestamp: 1, body: body)
        #expect(both == "\(first) \(second)")
    }

    @Test(arguments: [
        ([String](), "no secret given"),
        (["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], "the secret does not start with whsec_"),
        (["whsec_not base64!"], "the secret is not base64 after whsec_"),
        (["whsec_c2hvcnQ="], "the secret holds 5 bytes; Standard Webhooks asks for 24 to 64"),
        (["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_x"], "the second secret is not base64 after whsec_"),
        ([String](repeating: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", count: 3), "at most two secrets (the new and the old one while rotating), found 3"),
    ])
    func anUnusableSecretIsRefusedWithItsReason(_ secrets: [String], _ reason: String) {
        #expect(throws: WebhookSecretError(reason)) { try WebhookSigner(secrets: secrets) }
    }

    @Test func aGeneratedSecretIsUsable() throws {
        let secret = WebhookSigner.generateSecret()
        #expect(secret.hasPrefix("whsec_"))
        _ = try WebhookSigner(secrets: [secret])
    }
}
