import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// Webhook forwards through the real executables, to the sandbox's receiver standing for
/// the tenant's server: an app in webhook mode gets its chat events signed and once; a
/// sponsor gets its type-3 sponsees' messages with `msgId` and `sponseeDetails`, while a
/// type-4 sponsee still gets an FCM push.
extension ServiceProcesses {
    @Suite("End to end through webhooks")
    struct EndToEndWebhookTests {
        @Test(.needs(.python)) func webhookModeAndSponsorForwardsReachTheirEndpointsSignedAndOnce() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, webhooks: true)
            do {
                try await Self.aChatEventOfAWebhookModeAppReachesTheTenantSignedAndOnce(stack)
                try await Self.aTypeThreeSponseeIsForwardedToTheSponsorAndATypeFourOneIsPushed(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// Upstra's webhook mode: the tenant's server gets each event once per recipient user,
        /// whether or not the user registered a device with Herald; the channel a user muted
        /// is not forwarded; the same event sent again is the same forward.
        static func aChatEventOfAWebhookModeAppReachesTheTenantSignedAndOnce(_ stack: HeraldStack) async throws {
            let chat = stack.chatApp
            try await stack.expectOK("PUT", "/devices/bob-phone", ["platform": "fcm", "token": "bob-chat-token", "os": "android", "userId": "bob"], app: chat)
            try await stack.expectOK("PUT", "/users/dave/channels/general/preferences", ["enabled": false], app: chat)
            // Fixtures/upstra-message-created.json: to bob (a device), carol (none) and dave (muted).
            let event = try UpstreamFixture.body("upstra-message-created")
            let body = try JSONSerialization.data(withJSONObject: event)
            let first = await stack.exchange("POST", "/upstra/events", body: body, headers: ["Idempotency-Key": "upstra-msg-1"], app: chat)
            #expect(first.status == 202, "\(first.status)")
            let eventId = try #require((try JSONSerialization.jsonObject(with: first.body) as? [String: Any])?["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "two forwards delivered and dave's filtered") {
                await stack.deliveries(of: eventId, app: chat).compactMap { $0["status"] as? String }.sorted() == ["delivered", "delivered", "filtered"]
            }
            // Upstra sends the event again (its retry, the same Idempotency-Key): the same event, not a second forward.
            #expect(await stack.exchange("POST", "/upstra/events", body: body, headers: ["Idempotency-Key": "upstra-msg-1"], app: chat).status == 202)
            let receipts = stack.sandbox.running.sandbox.webhooks.received(name: chat)
            #expect(receipts.count == 2, "one forward per user with a switched-on channel")
            var byUser: [String: [String: Any]] = [:]
            for receipt in receipts {
                let checked = try await StandardWebhooks.verify(receipt, secret: stack.webhookSecret)
                #expect(checked.verified, "\(checked.error ?? "")")
                let payload = try #require(checked.payload)
                #expect(payload["type"] as? String == "upstra.message.created")
                let data = try #require(payload["data"] as? [String: Any])
                #expect(data["eventId"] as? String == eventId && data["app"] as? String == chat)
                #expect(data["alert"] as? [String: String] == ["title": "Ann (General)", "body": "See you at ten"])
                #expect((data["data"] as? [String: String])?["channelId"] == "general")
                let recipient = try #require(data["recipient"] as? [String: Any])
                byUser[recipient["userId"] as? String ?? "-"] = recipient
            }
            #expect(Set(byUser.keys) == ["bob", "carol"])
            #expect(byUser["bob"]?["devices"] as? [[String: String]] == [["deviceId": "bob-phone", "platform": "fcm", "token": "bob-chat-token"]])
            #expect((byUser["carol"]?["devices"] as? [Any])?.isEmpty == true, "carol has no device and is forwarded to all the same")
            #expect(stack.received("bob-chat-token").isEmpty, "a webhook-mode app's devices get no push from Herald")
        }

        /// Both com method types are pushed in an app that pushes itself; forwarding a
        /// sponsee's message to the sponsor's own server is the webhook delivery mode.
        static func aTypeThreeSponseeIsForwardedToTheSponsorAndATypeFourOneIsPushed(_ stack: HeraldStack) async throws {
            let details = #"{"sponsorUserId":"u-77","note":"whatever the back end needs"}"#
            let chat = stack.chatApp
            try await stack.expectOK("PUT", "/evernym/sponsees/s3", ["id": "s3", "type": 3, "value": details], app: chat)
            try await stack.expectOK("PUT", "/evernym/sponsees/s3", ["id": "s3", "type": 3, "value": "FCM:s3-token"])
            try await stack.expectOK("PUT", "/evernym/sponsees/s4", ["id": "s4", "type": 4, "value": "FCM:s4-token"])
            // Evernym's forward (Fixtures/evernym-forward.json) for s3 in both apps, and for s4.
            let forward = try UpstreamFixture.body("evernym-forward")
            for (sponsee, app) in [("s3", chat), ("s3", stack.app), ("s4", stack.app)] {
                var body = forward
                body["msgId"] = "msg-\(sponsee)"
                body["sponseeDetails"] = sponsee
                body["relationshipDid"] = "did:sov:\(sponsee)"
                try await stack.expectOK("POST", "/evernym/notify", body, app: app)
            }
            try await eventually(timeout: .seconds(30), "the webhook-mode app's forward and both pushes") {
                stack.sandbox.running.sandbox.webhooks.received(name: chat).contains { String(decoding: $0.body, as: UTF8.self).contains("msg-s3") }
                    && !stack.received("s3-token").isEmpty && !stack.received("s4-token").isEmpty
            }
            let receipts = stack.sandbox.running.sandbox.webhooks.received(name: chat).filter { String(decoding: $0.body, as: UTF8.self).contains("msg-s3") }
            #expect(receipts.count == 1)
            let checked = try await StandardWebhooks.verify(try #require(receipts.first), secret: stack.webhookSecret)
            #expect(checked.verified, "\(checked.error ?? "")")
            let data = try #require(checked.payload?["data"] as? [String: Any])
            #expect((data["data"] as? [String: String])?["msgId"] == "msg-s3")
            #expect(data["recipient"] as? [String: String] == ["sponseeId": "s3", "sponseeDetails": details])
            // The forward as Evernym sent it, all five fields, under data.forwarded; not in the context.
            let forwarded = try #require(data["forwarded"] as? [String: Any], "\(data)")
            #expect(NSDictionary(dictionary: forwarded).isEqual(to: forward), "\(forwarded)")
            #expect((data["context"] as? [String: String])?["forwarded"] == nil)
            for (token, msgId) in [("s3-token", "msg-s3"), ("s4-token", "msg-s4")] {
                let push = try #require(stack.received(token).first)
                #expect((push["data"] as? [String: String])?["msgId"] == msgId)
            }
            #expect(stack.sandbox.running.sandbox.webhooks.received(name: "\(stack.app)-sponsor").isEmpty, "a direct app's sponsees are pushed, not forwarded")
        }
    }
}
