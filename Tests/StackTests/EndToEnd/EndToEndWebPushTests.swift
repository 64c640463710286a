import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing
import WebPush

/// Browsers through the real executables, on Web Push: a subscription registered as the
/// browser hands it over gets a chat message its keys decrypt to the alert; a 410 removes it
/// after one request; a 429 with `Retry-After: 1` is retried after a second and delivered
/// once; a 9 KB Webcom value arrives as `tooBig` and the push service never sees over 4 KiB.
extension ServiceProcesses {
    @Suite("End to end on Web Push")
    struct EndToEndWebPushTests {
        @Test func browsersGetTheirPushesThroughWebPush() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, providers: [.webpush: 1])
            do {
                try await Self.theAppsKeyIsServedToItsPages(stack)
                let browser = try await Self.aChatMessageDecryptsToItsAlert(stack)
                try await Self.aGoneSubscriptionIsRemovedAfterOneRequest(stack, sibling: browser)
                try await Self.aThrottledPushIsRetriedAfterASecondAndDeliveredOnce(stack)
                try await Self.aNineKilobyteWebcomValueArrivesAsTooBig(stack, browser: browser)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        static func register(_ stack: HeraldStack, _ id: String, _ subscription: WebPushTestSubscription, user: String) async throws {
            try await stack.expectOK("PUT", "/devices/\(id)", ["platform": "webpush", "subscription": subscription.json, "userId": user, "locale": "en"])
        }

        static func chat(_ stack: HeraldStack, _ text: String, to user: String) async throws -> String {
            let accepted = try await stack.expectOK("POST", "/upstra/events", [
                "event": "message.created", "channel": ["id": "general", "displayName": "General"],
                "actor": ["id": "ann", "displayName": "Ann"], "message": ["type": "text", "text": text], "recipients": [user],
            ])
            return try #require(accepted["eventId"] as? String)
        }

        static func theAppsKeyIsServedToItsPages(_ stack: HeraldStack) async throws {
            let answer = await stack.call("GET", "/webpush/vapid-public-key")
            let key = try VAPIDKey(pemFile: stack.sandbox.directory.appendingPathComponent("webpush-vapid.pem").path)
            #expect(answer.status == 200 && answer.json["publicKey"] as? String == key.publicKey, "\(answer)")
        }

        static func aChatMessageDecryptsToItsAlert(_ stack: HeraldStack) async throws -> WebPushTestSubscription {
            let subscription = try stack.sandbox.webPushSubscription()
            try await register(stack, "browser-1", subscription, user: "web-ann")
            let device = try await stack.expectOK("GET", "/devices/browser-1")
            let registration = (device["device"] as? [String: Any])?["registration"] as? [String: Any]
            #expect(registration?["platform"] as? String == "webpush" && registration?["os"] as? String == "web", "\(device)")
            let eventId = try await chat(stack, "Hello browser", to: "web-ann")
            try await eventually(timeout: .seconds(60), "the chat message at the subscription") {
                !stack.sandbox.state.messages(provider: "webpush", token: subscription.endpoint).isEmpty
            }
            let entry = try #require(stack.sandbox.state.messages(provider: "webpush", token: subscription.endpoint).first)
            let message = entry.message
            #expect(message["event"] as? String == eventId && message["herald"] as? String == "1", "\(message)")
            let alert = try #require(message["alert"] as? [String: Any], "\(message)")
            #expect(alert["title"] as? String == "Ann (General)" && alert["body"] as? String == "Hello browser", "\(alert)")
            #expect(entry.headers?["urgency"] == "high", "a chat message is urgent: \(entry.headers ?? [:])")
            return subscription
        }

        static func aGoneSubscriptionIsRemovedAfterOneRequest(_ stack: HeraldStack, sibling: WebPushTestSubscription) async throws {
            let gone = try stack.sandbox.webPushSubscription(rule: "unregistered-")
            try await register(stack, "browser-gone", gone, user: "web-ann")
            _ = try await chat(stack, "Are you there?", to: "web-ann")
            try await eventually(timeout: .seconds(60), "the gone subscription removed") {
                await stack.call("GET", "/devices/browser-gone").status == 404
            }
            #expect(stack.sandbox.state.sendAttempts(provider: "webpush", token: gone.endpoint) == 1)
            // The next message reaches the user's other browser, and the gone one is not tried again.
            let before = stack.sandbox.state.messages(provider: "webpush", token: sibling.endpoint).count
            _ = try await chat(stack, "Still here", to: "web-ann")
            try await eventually(timeout: .seconds(60), "the next message at the other browser") {
                stack.sandbox.state.messages(provider: "webpush", token: sibling.endpoint).count > before
            }
            #expect(stack.sandbox.state.sendAttempts(provider: "webpush", token: gone.endpoint) == 1)
        }

        static func aThrottledPushIsRetriedAfterASecondAndDeliveredOnce(_ stack: HeraldStack) async throws {
            let throttled = try stack.sandbox.webPushSubscription(rule: "quota-1-after-1-")
            try await register(stack, "browser-busy", throttled, user: "web-bob")
            let sent = Date()
            let eventId = try await chat(stack, "Busy?", to: "web-bob")
            try await eventually(timeout: .seconds(60), "the throttled push delivered") {
                await stack.deliveries(of: eventId).compactMap { $0["status"] as? String } == ["delivered"]
            }
            let received = stack.sandbox.state.messages(provider: "webpush", token: throttled.endpoint)
            #expect(received.count == 1, "delivered once")
            #expect(stack.sandbox.state.sendAttempts(provider: "webpush", token: throttled.endpoint) == 2, "one 429, one delivery")
            let waited = try #require(received.first?.receivedAt).timeIntervalSince(sent)
            #expect(waited >= 1, "retried no sooner than Retry-After: 1 (\(waited) s)")
        }

        static func aNineKilobyteWebcomValueArrivesAsTooBig(_ stack: HeraldStack, browser: WebPushTestSubscription) async throws {
            let before = stack.sandbox.state.messages(provider: "webpush", token: browser.endpoint).count
            let accepted = try await stack.expectOK("POST", "/webcom/events", [
                "event": "value.changed", "path": "/boards/1/notes", "value": String(repeating: "n", count: 9 * 1024), "recipients": ["web-ann"],
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "the Webcom push delivered") {
                await stack.deliveries(of: eventId).compactMap { $0["status"] as? String } == ["delivered"]
            }
            let entries = stack.sandbox.state.messages(provider: "webpush", token: browser.endpoint)
            #expect(entries.count == before + 1)
            let entry = try #require(entries.last)
            #expect(entry.message["variant"] as? String == "tooBig" && entry.message["path"] as? String == "/boards/1/notes", "\(entry.message)")
            #expect(entry.message["value"] == nil)
            #expect(entry.requestBody.count <= 4096, "\(entry.requestBody.count) bytes reached the push service")
        }
    }
}
