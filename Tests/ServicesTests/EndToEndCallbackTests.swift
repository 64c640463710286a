import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// Outcome callbacks through the real executables: an app with `callbacks` is told, signed
/// as Standard Webhooks, when a provider revokes one of its devices' tokens.
extension ServiceProcesses {
    @Suite("End to end: outcome callbacks")
    struct EndToEndCallbackTests {
        /// FCM answers UNREGISTERED for the phone's token: Herald removes the device and posts
        /// one `device.revoked` callback naming the user, the device and the provider's code,
        /// the token masked; the Python `standardwebhooks` library verifies its signature.
        @Test(.enabled(if: PythonChecker.shouldRun)) func aRevokedTokenIsOneSignedDeviceRevokedCallback() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, callbacks: true)
            do {
                let token = "unregistered-callback-phone"
                try await stack.expectOK("PUT", "/devices/cb-phone", ["platform": "fcm", "token": token, "os": "android", "userId": "cb-user"])
                try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "1", "recipients": ["cb-user"]])
                try await eventually(timeout: .seconds(30), "the device removed") { await stack.call("GET", "/devices/cb-phone").status == 404 }
                let receiver = "\(stack.app)-callbacks"
                try await eventually(timeout: .seconds(30), "the device.revoked callback") {
                    !stack.sandbox.running.sandbox.webhooks.received(name: receiver).isEmpty
                }
                let receipts = stack.sandbox.running.sandbox.webhooks.received(name: receiver)
                #expect(receipts.count == 1, "one callback for one revocation")
                let checked = try await StandardWebhooks.verify(try #require(receipts.first), secret: stack.webhookSecret)
                #expect(checked.verified, "\(checked.error ?? "")")
                let payload = try #require(checked.payload)
                #expect(payload["type"] as? String == "device.revoked")
                let data = try #require(payload["data"] as? [String: String])
                #expect(data["app"] == stack.app && data["userId"] == "cb-user" && data["deviceId"] == "cb-phone" && data["platform"] == "fcm")
                #expect(data["providerCode"] == "UNREGISTERED")
                #expect(data["token"] == TokenMask.masked(token) && data["token"] != token, "the token is masked: \(data["token"] ?? "")")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
