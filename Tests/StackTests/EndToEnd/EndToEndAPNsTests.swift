import Foundation
import HeraldClient
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// iOS devices through the real executables, on APNs: a Smart ID `OS: iOS` device and an
/// Upstra iOS device (registered without a platform) get their pushes from the sandbox's
/// APNs with Apple's headers, an encrypted push opens the notification service extension
/// and the client kit opens it, an FCM token of the same user goes through FCM, a 410
/// revokes a device unless it registered again after the 410's timestamp, and 503 and 429
/// are retried through the tiers and delivered once.
extension ServiceProcesses {
    @Suite("End to end on APNs")
    struct EndToEndAPNsTests {
        @Test func iOSDevicesOfSmartIDAndUpstraGetTheirPushesOverAPNs() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, apnsDispatchers: 1)
            do {
                try await Self.smartID(stack)
                try await Self.upstraEncryptedBesideAnFCMToken(stack)
                try await Self.collapseAndSilentPush(stack)
                try await Self.aPlainWebcomPushReachesTheExtensionAsAnAlert(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        static func smartID(_ stack: HeraldStack) async throws {
            let bad = await stack.call("POST", "/smartid/devices", ["profileID": ["p-ios"], "OS": "iOS", "deviceID": "not-hex"])
            #expect(bad.status == 400 && "\(bad.json)".contains("deviceID"), "an iOS deviceID must be an APNs token: \(bad)")
            // Smart ID's documented registration, with Apple's example device token.
            let fixture = UpstreamFixture.folder.appendingPathComponent("smartid-device-ios.json")
            let registration = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])["body"] as? [String: Any]
            let body = try #require(registration)
            let token = try #require(body["deviceID"] as? String)
            let profile = try #require((body["profileID"] as? [String])?.first)
            try await stack.expectOK("POST", "/smartid/devices", body)
            let device = try await stack.expectOK("GET", "/devices/\(token)")
            #expect(((device["device"] as? [String: Any])?["registration"] as? [String: Any])?["platform"] as? String == "apns", "\(device)")
            let before = Date()
            try await stack.expectOK("POST", "/smartid/push", ["messageId": "sid-ios-1", "pushId": profile, "requestor": "Bank", "type": "SIGN", "timeToLive": 90])
            try await eventually(timeout: .seconds(60), "the Smart ID push on APNs") { !stack.sandbox.state.messages(provider: "apns", token: token).isEmpty }
            let entry = try #require(stack.sandbox.state.messages(provider: "apns", token: token).first)
            let headers = try #require(entry.headers)
            // A signing request must reach the person even in a force-quit app: an alert, never
            // a background push (UpstreamFidelityTests checks its alert and interruption level).
            #expect(headers["apns-push-type"] == "alert" && headers["apns-priority"] == "10", "\(headers)")
            #expect(headers["apns-topic"] == stack.sandbox.apnsTopic)
            let expiration = try #require(headers["apns-expiration"].flatMap(Int.init))
            #expect((Int(before.timeIntervalSince1970) + 60)...(Int(Date().timeIntervalSince1970) + 91) ~= expiration, "expiration from timeToLive 90: \(expiration)")
            #expect(headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil, "\(headers)")
            let message = entry.message
            #expect(message["messageId"] as? String == "sid-ios-1" && message["requestor"] as? String == "Bank", "\(message)")
            #expect(((message["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "Bank: sign a document", "\(message)")
            #expect(message["pushId"] as? String == profile, "\(message)")
            #expect(stack.sandbox.state.messages(provider: "fcm").isEmpty, "no Apple token goes to FCM")
        }

        static func upstraEncryptedBesideAnFCMToken(_ stack: HeraldStack) async throws {
            let phoneKey = DeviceKeyPair.generate(keyId: "ios-key-1")
            let token = TestSandbox.apnsToken()
            let key = phoneKey.registration
            // Upstra's iOS SDK hands over the APNs token; the device says its OS, not a provider.
            try await stack.expectOK("PUT", "/devices/ui-iphone", [
                "token": token, "os": "ios", "userId": "ui", "locale": "en",
                "key": ["keyId": key.keyId, "p256dh": key.p256dh, "auth": key.auth],
            ])
            try await stack.expectOK("PUT", "/devices/ui-android", ["platform": "fcm", "token": "ui-fcm-token", "os": "android", "userId": "ui"])
            let accepted = try await stack.expectOK("POST", "/upstra/events", [
                "event": "message.created", "channel": ["id": "ios-ch", "displayName": "Design"],
                "actor": ["id": "ann", "displayName": "Ann"], "message": ["type": "text", "text": "Hello iPhone"], "recipients": ["ui"],
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "both deliveries delivered") {
                await stack.deliveries(of: eventId).compactMap { $0["status"] as? String } == ["delivered", "delivered"]
            }
            let entry = try #require(stack.sandbox.state.messages(provider: "apns", token: token).first)
            let aps = try #require(entry.message["aps"] as? [String: Any])
            #expect(aps["mutable-content"] as? Int == 1, "the extension opens an encrypted push: \(aps)")
            #expect(aps["alert"] != nil && entry.headers?["apns-push-type"] == "alert" && entry.headers?["apns-priority"] == "10", "\(entry.headers ?? [:])")
            #expect(entry.message["enc"] as? String == "aes128gcm" && entry.message["kid"] as? String == "ios-key-1")
            let opened = try HeraldNotificationDecoder(keyring: HeraldKeyring(deviceKeys: [phoneKey])).decode(userInfo: entry.message)
            #expect(opened.eventId == eventId, "\(opened)")
            #expect(String(describing: opened).contains("Hello iPhone"), "the alert travels inside: \(opened)")
            #expect(stack.received("ui-fcm-token").count == 1, "the FCM token of the same user goes through FCM")
        }

        static func collapseAndSilentPush(_ stack: HeraldStack) async throws {
            let token = TestSandbox.apnsToken()
            try await stack.expectOK("PUT", "/devices/c-iphone", ["platform": "apns", "token": token, "os": "ios", "userId": "c"])
            try await stack.postEvent([
                "id": "apns-silent-1", "source": "api", "kind": "sync", "audience": ["users": ["c"]],
                "options": ["collapseKey": "inbox", "ttlSeconds": 600],
            ])
            try await eventually(timeout: .seconds(60), "the silent push") { !stack.sandbox.state.messages(provider: "apns", token: token).isEmpty }
            let entry = try #require(stack.sandbox.state.messages(provider: "apns", token: token).first)
            #expect(entry.headers?["apns-push-type"] == "background" && entry.headers?["apns-priority"] == "5", "\(entry.headers ?? [:])")
            #expect(entry.headers?["apns-collapse-id"] == "inbox")
            #expect((entry.message["aps"] as? [String: Any])?["content-available"] as? Int == 1, "\(entry.message)")
        }

        /// Webcom's iOS guide decodes every push in a notification service extension, which
        /// iOS runs only for an alert push with mutable-content: a data change is no silent push.
        static func aPlainWebcomPushReachesTheExtensionAsAnAlert(_ stack: HeraldStack) async throws {
            let token = TestSandbox.apnsToken()
            try await stack.expectOK("PUT", "/devices/wc-iphone", ["platform": "apns", "token": token, "os": "ios", "userId": "wc-ios"])
            try await stack.expectOK("PUT", "/devices/wc-fcm-iphone", ["platform": "fcm", "token": "wc-fcm-ios-token", "os": "ios", "userId": "wc-ios"])
            try await stack.expectOK("POST", "/webcom/events", ["path": "/sensors/s1", "event": "value.changed", "value": "21", "recipients": ["wc-ios"]])
            try await eventually(timeout: .seconds(60), "the Webcom push on APNs and through FCM") {
                !stack.sandbox.state.messages(provider: "apns", token: token).isEmpty && !stack.received("wc-fcm-ios-token").isEmpty
            }
            let entry = try #require(stack.sandbox.state.messages(provider: "apns", token: token).first)
            let aps = try #require(entry.message["aps"] as? [String: Any])
            #expect(aps["mutable-content"] as? Int == 1 && aps["content-available"] == nil && aps["alert"] != nil, "\(aps)")
            #expect(entry.headers?["apns-push-type"] == "alert", "\(entry.headers ?? [:])")
            #expect(entry.message["path"] as? String == "/sensors/s1" && entry.message["appId"] != nil, "\(entry.message)")
            // FCM carries the alert as its notification and the rest in the apns block.
            let message = try #require(stack.received("wc-fcm-ios-token").first)
            #expect(message["notification"] != nil, "\(message)")
            let apns = try #require(message["apns"] as? [String: Any])
            let fcmAPS = ((apns["payload"] as? [String: Any])?["aps"] as? [String: Any]) ?? [:]
            #expect(fcmAPS["mutable-content"] as? Int == 1 && fcmAPS["content-available"] == nil, "\(apns)")
            #expect((apns["headers"] as? [String: String])?["apns-push-type"] == "alert", "\(apns)")
        }

        @Test func a410RevokesTheDeviceUnlessItRegisteredAgainAfterTheTimestamp() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0, apnsDispatchers: 1)
            do {
                // Dead since now: the device is removed and not sent to again.
                let dead = TestSandbox.apnsToken(rule: "unregistered-")
                try await stack.expectOK("PUT", "/devices/dead-iphone", ["platform": "apns", "token": dead, "os": "ios", "userId": "dead"])
                try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "1", "recipients": ["dead"]])
                try await eventually(timeout: .seconds(60), "the device removed") { await stack.call("GET", "/devices/dead-iphone").status == 404 }
                let second = try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "2", "recipients": ["dead"]])
                let secondId = try #require(second["eventId"] as? String)
                try await eventually(timeout: .seconds(60), "the second event resolved to no audience") {
                    await stack.deliveries(of: secondId).first?["reason"] as? String == "no audience"
                }
                #expect(stack.sandbox.state.sendAttempts(provider: "apns", token: dead) == 1, "the dead token was not used again")

                // Invalid since an hour ago, registered since: kept.
                let since = Int(Date().timeIntervalSince1970) - 3600
                let renewed = TestSandbox.apnsToken(rule: "since-\(since)-unregistered-")
                try await stack.expectOK("PUT", "/devices/renewed-iphone", ["platform": "apns", "token": renewed, "os": "ios", "userId": "renewed"])
                let third = try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "3", "recipients": ["renewed"]])
                let thirdId = try #require(third["eventId"] as? String)
                try await eventually(timeout: .seconds(60), "the 410 answered") {
                    await stack.deliveries(of: thirdId).first?["status"] as? String == "revoked"
                }
                // Registration's word on it: the device was kept.
                let metrics = "http://127.0.0.1:\(stack.registrations[0].healthPort)/metrics"
                try await eventually(timeout: .seconds(60), "Registration kept the device") {
                    await DashboardMetricsTests.scrape(metrics).contains(#"herald_registration_revocations_total{result="renewed"} 1"#)
                }
                #expect(await stack.call("GET", "/devices/renewed-iphone").status == 200)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test func unavailableAndThrottledSendsAreRetriedThroughTheTiersAndDeliveredOnce() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0, apnsDispatchers: 1)
            do {
                let tokens = ["unavailable-2-after-1-", "quota-1-after-1-"].map { TestSandbox.apnsToken(rule: $0) }
                for (index, token) in tokens.enumerated() {
                    try await stack.expectOK("PUT", "/devices/retry-\(index)", ["platform": "apns", "token": token, "os": "ios", "userId": "retry-\(index)"])
                }
                try await stack.expectOK("POST", "/webcom/events", ["path": "/r", "event": "value.changed", "value": "1", "recipients": ["retry-0", "retry-1"]])
                try await eventually(timeout: .seconds(90), "both delivered after their failures") {
                    tokens.allSatisfy { !stack.sandbox.state.messages(provider: "apns", token: $0).isEmpty }
                }
                #expect(stack.sandbox.state.sendAttempts(provider: "apns", token: tokens[0]) == 3, "two 503s, then delivered")
                #expect(stack.sandbox.state.sendAttempts(provider: "apns", token: tokens[1]) == 2, "one 429, then delivered")
                #expect(tokens.allSatisfy { stack.sandbox.state.messages(provider: "apns", token: $0).count == 1 }, "delivered once each")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
