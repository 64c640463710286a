import Foundation
import HeraldClient
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// What the upstreams really send and their apps really need, through the real executables
/// and the sandbox, each from a request shaped as the upstream documents or builds it
/// (`Fixtures/*.json` name their source): Verity's forward per com method and its empty
/// sender name, a type-3 sponsee pushed, a Smart ID request to an iPhone as a time-sensitive
/// alert naming its profile, Upstra's other message types and long texts, its unregister
/// with another user's id, an APNs token where the app has no APNs account, and a Webcom
/// value over the providers' limit.
extension ServiceProcesses {
    @Suite("Upstream fidelity, end to end")
    struct UpstreamFidelityTests {
        @Test func whatTheUpstreamsSendReachesTheirApps() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, apnsDispatchers: 1, webhooks: true)
            do {
                try await Self.verityForwardsOnePushPerComMethod(stack)
                try await Self.aTypeThreeSponseeIsPushed(stack)
                try await Self.aSmartIDRequestReachesAnIPhoneAsAnAlert(stack)
                try await Self.upstraMessagesOfEveryTypeAndLength(stack)
                try await Self.unregisteringWithAnotherUsersIdKeepsTheDevice(stack)
                try await Self.anAPNsTokenWithoutAnAPNsAccountIsRefused(stack)
                try await Self.aLargeWebcomValueArrivesAsTooBig(stack)
                try await Self.eachDeviceOpensItsEmailWithItsOwnAddressKey(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// Verity sends one forward per com method, with one msgId; the sender has no name.
        static func verityForwardsOnePushPerComMethod(_ stack: HeraldStack) async throws {
            let forward = try UpstreamFixture.body("verity-forward-per-com-method")
            var second = forward
            second["sponseeDetails"] = "FCM:verity-tablet-token"
            let first = try await stack.expectOK("POST", "/evernym/notify", forward)
            let other = try await stack.expectOK("POST", "/evernym/notify", second)
            #expect(first["eventId"] as? String != other["eventId"] as? String, "one event per com method: \(first) \(other)")
            // Verity's retry of the first forward is the same push.
            let repeated = try await stack.expectOK("POST", "/evernym/notify", forward)
            #expect(repeated["eventId"] as? String == first["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "both com methods pushed") {
                !stack.received("verity-phone-token").isEmpty && !stack.received("verity-tablet-token").isEmpty
            }
            let message = try #require(stack.received("verity-phone-token").first)
            let data = try #require(message["data"] as? [String: String])
            #expect(data["msgId"] == "verity-uid-7" && data["msgType"] == "credOffer" && data["msgSenderName"] == nil, "\(data)")
            // One message for both systems: Android's handler gets the data (no notification),
            // an iPhone on Firebase the alert in the apns block.
            #expect(message["notification"] == nil, "\(message)")
            let apns = try #require(message["apns"] as? [String: Any])
            let aps = try #require((apns["payload"] as? [String: Any])?["aps"] as? [String: Any])
            #expect((aps["alert"] as? [String: Any])?["body"] as? String == "New message", "\(aps)")
            #expect(aps["mutable-content"] as? Int == 1 && aps["content-available"] == nil, "\(aps)")
            #expect((apns["headers"] as? [String: String])?["apns-push-type"] == "alert", "\(apns)")
            #expect((apns["headers"] as? [String: String])?["apns-priority"] == "10", "\(apns)")
            #expect(stack.received("verity-phone-token").count == 1, "a repeated forward is not pushed again")
        }

        /// Type 3 ("Forward Push"): Verity forwards to Herald, the sponsor, which pushes.
        static func aTypeThreeSponseeIsPushed(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/evernym/sponsees/fidelity-s3", ["id": "fidelity-s3", "type": 3, "value": "FCM:fidelity-s3-token"])
            var forward = try UpstreamFixture.body("verity-forward-per-com-method")
            forward["msgId"] = "verity-uid-8"
            forward["sponseeDetails"] = "fidelity-s3"
            forward["metaData"] = ["msgType": "proofReq", "msgSenderName": "Faber College"]
            try await stack.expectOK("POST", "/evernym/notify", forward)
            try await eventually(timeout: .seconds(60), "the type-3 sponsee pushed") { !stack.received("fidelity-s3-token").isEmpty }
            let message = try #require(stack.received("fidelity-s3-token").first)
            let aps = ((message["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
            #expect((aps?["alert"] as? [String: Any])?["title"] as? String == "Faber College", "\(message)")
            // A value Herald cannot push to is refused in an app that pushes itself.
            let opaque = await stack.call("PUT", "/evernym/sponsees/fidelity-s4", ["type": 3, "value": #"{"sponsorUser":"42"}"#])
            #expect(opaque.status == 400 && "\(opaque.json)".contains("FCM:<token>"), "\(opaque)")
        }

        /// Smart ID's documented request (its pushId with a leading space) to an iPhone on APNs.
        static func aSmartIDRequestReachesAnIPhoneAsAnAlert(_ stack: HeraldStack) async throws {
            let push = try UpstreamFixture.body("smartid-push-documented")
            let pushId = try #require(push["pushId"] as? String)
            let token = TestSandbox.apnsToken()
            // The app registers the profile as the doc prints it too; both are trimmed.
            try await stack.expectOK("POST", "/smartid/devices", ["profileID": [pushId], "OS": "iOS", "deviceID": token])
            try await stack.expectOK("POST", "/smartid/push", push)
            try await eventually(timeout: .seconds(60), "the sign-in request on APNs") { !stack.sandbox.state.messages(provider: "apns", token: token).isEmpty }
            let entry = try #require(stack.sandbox.state.messages(provider: "apns", token: token).first)
            #expect(entry.headers?["apns-push-type"] == "alert" && entry.headers?["apns-priority"] == "10", "\(entry.headers ?? [:])")
            let aps = try #require(entry.message["aps"] as? [String: Any])
            #expect(aps["interruption-level"] as? String == "time-sensitive" && aps["mutable-content"] as? Int == 1, "\(aps)")
            #expect(aps["content-available"] == nil, "never a background push: \(aps)")
            #expect((aps["alert"] as? [String: Any])?["body"] as? String == "Acme: confirm your sign-in", "\(aps)")
            #expect(entry.message["pushId"] as? String == pushId.trimmingCharacters(in: .whitespaces), "\(entry.message)")
            let opened = try HeraldNotificationDecoder(keyring: HeraldKeyring()).decode(userInfo: entry.message)
            guard case .authenticationRequest(let request) = opened.event else { throw TestFailure("not a sign-in request: \(opened)") }
            #expect(request.pushId == "74db355b-ecec-48b4-a4d8-9e6f13084bab" && request.messageId == "7bcc1708-be42-48f4-ac67-c76afddae805")
            #expect(opened.alert == HeraldAlert(title: nil, body: "Acme: confirm your sign-in", interruptionLevel: "time-sensitive"), "\(opened)")
        }

        /// A file message is "Special message"; a 3,000-character text arrives shortened.
        static func upstraMessagesOfEveryTypeAndLength(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/fidelity-chat-phone", ["platform": "fcm", "token": "fidelity-chat-token", "os": "android", "userId": "fidelity-chat-user"])
            try await stack.expectOK("POST", "/upstra/events", try UpstreamFixture.body("upstra-message-file"))
            try await eventually(timeout: .seconds(60), "the file message") { !stack.received("fidelity-chat-token").isEmpty }
            let file = try #require(stack.received("fidelity-chat-token").first)
            #expect((file["notification"] as? [String: Any])?["body"] as? String == "Special message", "\(file)")
            #expect((file["android"] as? [String: Any])?["priority"] as? String == "HIGH", "a chat alert is high priority: \(file)")
            // 3,000 characters, two bytes each in UTF-8: more than FCM's 4,096 bytes.
            let text = String(repeating: "Привет, как дела? ", count: 167) + "Пока!"
            #expect(text.count >= 3000 && text.utf8.count > 4096)
            var long = try UpstreamFixture.body("upstra-message-file")
            long["message"] = ["type": "text", "text": text]
            try await stack.expectOK("POST", "/upstra/events", long)
            try await eventually(timeout: .seconds(60), "the long text") { stack.received("fidelity-chat-token").count == 2 }
            let shortened = try #require(stack.received("fidelity-chat-token").last)
            let body = try #require((shortened["notification"] as? [String: Any])?["body"] as? String)
            #expect(body.hasSuffix("\u{2026}") && text.hasPrefix(String(body.dropLast())) && body.utf8.count <= 4096 && body.count > 1000, "\(body.count)")
        }

        /// "No action is taken otherwise": success, and the device stays.
        static func unregisteringWithAnotherUsersIdKeepsTheDevice(_ stack: HeraldStack) async throws {
            let answer = await stack.call("DELETE", "/devices/fidelity-chat-phone?userId=someone-else")
            #expect(answer.status == 200 && answer.json["removed"] as? Bool == false, "\(answer)")
            try await stack.expectOK("GET", "/devices/fidelity-chat-phone")
        }

        /// The chat app of this stack has no `apns` section.
        static func anAPNsTokenWithoutAnAPNsAccountIsRefused(_ stack: HeraldStack) async throws {
            let token = TestSandbox.apnsToken()
            for (path, body) in [
                ("/smartid/devices", ["profileID": "p-no-apns", "OS": "iOS", "deviceID": token] as [String: Any]),
                ("/devices/no-apns-iphone", ["token": token, "os": "ios", "userId": "u"]),
            ] {
                let answer = await stack.call(path.hasPrefix("/devices") ? "PUT" : "POST", path, body, app: stack.chatApp)
                #expect(answer.status == 422 && "\(answer.json["detail"] ?? "")".contains("no APNs account"), "\(path): \(answer)")
            }
        }

        /// A 100 KB value: accepted, and delivered as `tooBig`.
        static func aLargeWebcomValueArrivesAsTooBig(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/fidelity-webcom", ["platform": "fcm", "token": "fidelity-webcom-token", "os": "android", "userId": "fidelity-webcom-user"])
            let value = String(repeating: "x", count: 100_000)
            try await stack.expectOK("POST", "/webcom/events", ["path": "/docs/d1", "event": "value.changed", "value": value, "recipients": ["fidelity-webcom-user"]])
            try await eventually(timeout: .seconds(60), "the Webcom push") { !stack.received("fidelity-webcom-token").isEmpty }
            let data = try #require(stack.received("fidelity-webcom-token").first?["data"] as? [String: String])
            #expect(data["variant"] == "tooBig" && data["path"] == "/docs/d1" && data["value"] == nil, "\(data)")
        }

        /// Sudo: each device registers its own key for the address; the second does not stop
        /// the first from opening its pushes.
        static func eachDeviceOpensItsEmailWithItsOwnAddressKey(_ stack: HeraldStack) async throws {
            var keys: [String: AddressKeyPair] = [:]
            for device in ["sudo-phone", "sudo-tablet"] {
                try await stack.expectOK("PUT", "/devices/\(device)", ["platform": "fcm", "token": "\(device)-token", "os": "android", "userId": "sudo-user"])
                try await stack.enableEmail(deviceId: device)
                let key = try AddressKeyPair.generate(keyId: "\(device)-key")
                keys[device] = key
                try await stack.expectOK("PUT", "/email/addresses/sudo-addr/key", [
                    "keyId": key.registration.keyId, "publicKey": key.registration.publicKey, "owner": "sudo-user", "deviceId": device,
                ])
            }
            try await stack.expectOK("POST", "/email/messages", [
                "emailAddressId": "sudo-addr", "sudoId": "sudo-1", "owner": "sudo-user", "messageId": "mail-per-device",
                "from": "alice@example.com", "subject": "Hi", "receivedAt": "2026-11-28T10:00:00Z",
            ])
            try await eventually(timeout: .seconds(60), "both devices' pushes") {
                !stack.received("sudo-phone-token").isEmpty && !stack.received("sudo-tablet-token").isEmpty
            }
            for device in ["sudo-phone", "sudo-tablet"] {
                let data = try #require(stack.received("\(device)-token").first?["data"] as? [String: String])
                #expect(data["enc"] == "jwe" && data["kid"] == "\(device)-key", "\(data)")
                let opened = try HeraldNotificationDecoder(keyring: HeraldKeyring(addressKeys: [try #require(keys[device])])).decode(data)
                guard case .emailReceived(let email) = opened.event else { throw TestFailure("not an email: \(opened)") }
                #expect(email.messageId == "mail-per-device")
            }
        }
    }
}
