import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// Outcome callbacks through the real executables: an app with `callbacks` is told, signed
/// as Standard Webhooks, when a provider revokes one of its devices' tokens.
extension ServiceProcesses {
    @Suite("End to end: outcome callbacks")
    struct EndToEndCallbackTests {
        @Test(.needs(.python)) func revokedTokensAndFailedDeliveriesAreSignedCallbacks() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, callbacks: true)
            do {
                try await Self.aRevokedTokenIsOneSignedDeviceRevokedCallback(stack)
                try await Self.aDeliveryFCMRefusesIsOneDeliveryFailedCallback(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// The callbacks of `type` the app's endpoint received, each verified by the Python
        /// `standardwebhooks` library, as their payloads.
        static func callbacks(_ stack: HeraldStack, type: String) async throws -> [[String: Any]] {
            var payloads: [[String: Any]] = []
            for receipt in stack.sandbox.running.sandbox.webhooks.received(name: "\(stack.app)-callbacks") {
                let checked = try await StandardWebhooks.verify(receipt, secret: stack.webhookSecret)
                #expect(checked.verified, "\(checked.error ?? "")")
                if let payload = checked.payload, payload["type"] as? String == type { payloads.append(payload) }
            }
            return payloads
        }

        /// FCM answers UNREGISTERED for the phone's token: Herald removes the device and posts
        /// one `device.revoked` callback naming the user, the device and the provider's code,
        /// the token masked.
        static func aRevokedTokenIsOneSignedDeviceRevokedCallback(_ stack: HeraldStack) async throws {
            let token = "unregistered-callback-phone"
            try await stack.expectOK("PUT", "/devices/cb-phone", ["platform": "fcm", "token": token, "os": "android", "userId": "cb-user"])
            try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "1", "recipients": ["cb-user"]])
            try await eventually(timeout: .seconds(60), "the device removed") { await stack.call("GET", "/devices/cb-phone").status == 404 }
            try await eventually(timeout: .seconds(60), "the device.revoked callback") { try await !callbacks(stack, type: "device.revoked").isEmpty }
            let revoked = try await callbacks(stack, type: "device.revoked")
            #expect(revoked.count == 1, "one callback for one revocation")
            let data = try #require(revoked.first?["data"] as? [String: String])
            #expect(data["app"] == stack.app && data["userId"] == "cb-user" && data["deviceId"] == "cb-phone" && data["platform"] == "fcm")
            #expect(data["providerCode"] == "UNREGISTERED")
            #expect(data["token"] == TokenMask.masked(token) && data["token"] != token, "the token is masked: \(data["token"] ?? "")")
        }

        /// FCM refuses the push (401 THIRD_PARTY_AUTH_ERROR: the app's APNs credentials behind FCM are bad): the delivery fails, and the app is
        /// told once, with the event, the delivery and FCM's code.
        static func aDeliveryFCMRefusesIsOneDeliveryFailedCallback(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/bad-phone", ["platform": "fcm", "token": "thirdparty-callback-phone", "os": "android", "userId": "bad-user"])
            let accepted = try await stack.expectOK("POST", "/webcom/events", ["path": "/b", "event": "value.changed", "value": "1", "recipients": ["bad-user"]])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "the delivery failed") {
                await stack.deliveries(of: eventId).first?["status"] as? String == "failed"
            }
            try await eventually(timeout: .seconds(60), "the delivery.failed callback") { try await !callbacks(stack, type: "delivery.failed").isEmpty }
            let failed = try await callbacks(stack, type: "delivery.failed")
            #expect(failed.count == 1)
            let data = try #require(failed.first?["data"] as? [String: String])
            #expect(data["eventId"] == eventId && data["status"] == "failed" && data["providerCode"] == "THIRD_PARTY_AUTH_ERROR", "\(data)")
            // Its only delivery has its final outcome: the event is complete, and failed.
            try await eventually(timeout: .seconds(60), "the event.completed callback") {
                try await callbacks(stack, type: "event.completed").contains { ($0["data"] as? [String: String])?["eventId"] == eventId }
            }
            let completed = try await callbacks(stack, type: "event.completed").filter { ($0["data"] as? [String: String])?["eventId"] == eventId }
            #expect(completed.count == 1)
            let counts = try #require(completed.first?["data"] as? [String: String])
            #expect(counts["status"] == "failed" && counts["deliveries"] == "1" && counts["failed"] == "1" && counts["source"] == "webcom", "\(counts)")
        }
    }
}
