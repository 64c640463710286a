import Foundation
import HeraldClient
import HeraldDocuments
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the real upstreams call Herald, round 4, through the real executables and the sandbox:
/// Verity given only a URL (an ingest URL, no header), Smart ID's one request per profile,
/// Upstra's repeatable and signed-out unregister, a phone passed from one user to another,
/// the actor left out, unnamed channels and 20,000-member channels, Sudo's opt-in email and
/// empty subjects, a Verity forward without a type, Webcom's removed list, and a browser's
/// subscription on a private network where the app allows it. Bodies come from
/// `Fixtures/*.json`, each naming its source.
extension ServiceProcesses {
    @Suite("Upstream fidelity round 4, end to end")
    struct UpstreamRound4Tests {
        @Test func whatTheUpstreamsDoIsWhatHeraldDoes() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, providers: [.webpush: 1])
            do {
                try await Self.verityPostsToItsIngestURLWithoutAHeader(stack)
                try await Self.smartIDPostsOncePerProfile(stack)
                try await Self.unregisteringTwiceSucceedsBothTimes(stack)
                try await Self.aSignedOutAppUnregistersByItsPushToken(stack)
                try await Self.anotherUserSigningInOnThePhoneTakesItOver(stack)
                try await Self.theActorIsNotNotifiedOfTheirOwnMessage(stack)
                try await Self.anUnnamedChannelIsPushed(stack)
                try await Self.aMessageToTwentyThousandMembersIsDelivered(stack)
                try await Self.sudoEmailWaitsForTheDevicesOptIn(stack)
                try await Self.aVerityForwardWithoutATypeIsPushed(stack)
                try await Self.aWebcomRemovedListIsAccepted(stack)
                try await Self.aPrivateSubscriptionIsTakenWhereTheAppAllowsIt(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// A POST with no Authorization header to `path` (the gateway's root, then `path`).
        static func postBare(_ stack: HeraldStack, _ path: String, _ json: [String: Any]) async -> (status: Int, json: [String: Any]) {
            let answer = await stack.postWithoutCredential(path, body: (try? JSONSerialization.data(withJSONObject: json)) ?? Data())
            return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
        }

        /// Verity's forward, posted as Verity does (no header) to the URL the sponsor gave it.
        static func verityPostsToItsIngestURLWithoutAHeader(_ stack: HeraldStack) async throws {
            let made = try await stack.expectOK("POST", "/ingest-urls", ["id": "verity", "source": "evernym"])
            let path = try #require(made["path"] as? String)
            let secret = try #require(made["secret"] as? String)
            #expect(path.hasPrefix("/v1/ingest/hgi_") && path.hasSuffix("/evernym/notify") && path.contains(secret), "\(made)")
            var forward = try UpstreamFixture.body("verity-forward-per-com-method")
            forward["sponseeDetails"] = "FCM:round4-ingest-token"
            let answer = await postBare(stack, path, forward)
            #expect(answer.status == 202, "\(answer)")
            try await eventually(timeout: .seconds(60), "the forward pushed") { !stack.received("round4-ingest-token").isEmpty }
            // A wrong secret, another source's path, and the API's own path without a key.
            #expect(await postBare(stack, "/v1/ingest/hgi_wrong\(UUID().uuidString)/evernym/notify", forward).status == 404)
            #expect(await postBare(stack, path.replacingOccurrences(of: "/evernym/notify", with: "/smartid/push"), forward).status == 404)
            #expect(await postBare(stack, "/v1/apps/\(stack.app)/evernym/notify", forward).status == 401)
            // Listed by fingerprint, never by secret.
            let listed = try await stack.expectOK("GET", "/ingest-urls")
            #expect(!"\(listed)".contains(secret) && "\(listed)".contains(secret.isEmpty ? "-" : "verity"), "\(listed)")
            // Rotated: both secrets work; the old one revoked: 404, the new one still works.
            let rotated = try await stack.expectOK("POST", "/ingest-urls/verity/secrets")
            let newPath = try #require(rotated["path"] as? String)
            forward["msgId"] = "verity-rotated"
            #expect(await postBare(stack, path, forward).status == 202)
            forward["msgId"] = "verity-rotated-2"
            #expect(await postBare(stack, newPath, forward).status == 202)
            let oldFingerprint = try #require(made["fingerprint"] as? String)
            try await stack.expectOK("DELETE", "/ingest-urls/verity/secrets/\(oldFingerprint)")
            #expect(await postBare(stack, path, forward).status == 404)
            #expect(await postBare(stack, newPath, forward).status == 202)
            try await stack.expectOK("DELETE", "/ingest-urls/verity")
            #expect(await postBare(stack, newPath, forward).status == 404)
            // No secret in the gateway's log, whatever happened to it.
            for text in [secret, String(newPath.dropFirst("/v1/ingest/".count).prefix { $0 != "/" })] {
                #expect(!stack.gateway.logText().contains(text), "the gateway logged an ingest secret")
            }
        }

        /// One request per profile, one messageId: each profile's phone gets it, a repeat does not.
        static func smartIDPostsOncePerProfile(_ stack: HeraldStack) async throws {
            try await stack.expectOK("POST", "/smartid/devices", ["profileID": ["profile-one"], "OS": "Android", "deviceID": "round4-profile-one-token"])
            try await stack.expectOK("POST", "/smartid/devices", ["profileID": ["profile-two"], "OS": "Android", "deviceID": "round4-profile-two-token"])
            var request = try UpstreamFixture.body("smartid-push-per-profile")
            let first = try await stack.expectOK("POST", "/smartid/push", request)
            request["pushId"] = "profile-two"
            let second = try await stack.expectOK("POST", "/smartid/push", request)
            #expect(first["eventId"] as? String != second["eventId"] as? String, "\(first) \(second)")
            try await eventually(timeout: .seconds(60), "both profiles' phones") {
                !stack.received("round4-profile-one-token").isEmpty && !stack.received("round4-profile-two-token").isEmpty
            }
            let repeated = try await stack.expectOK("POST", "/smartid/push", request)
            #expect(repeated["eventId"] as? String == second["eventId"] as? String)
        }

        /// "You can register and unregister as many times as you'd like."
        static func unregisteringTwiceSucceedsBothTimes(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-twice", ["platform": "fcm", "token": "round4-twice-token", "os": "android", "userId": "u"])
            let first = await stack.call("DELETE", "/devices/round4-twice")
            let second = await stack.call("DELETE", "/devices/round4-twice")
            #expect(first.status == 200 && first.json["removed"] as? Bool == true, "\(first)")
            #expect(second.status == 200 && second.json["removed"] as? Bool == false, "\(second)")
        }

        /// Unregistering "does not require the EkoClient … to be associated with any user": the kit
        /// removes the device signed out, by its push token; a device id alone is not enough.
        static func aSignedOutAppUnregistersByItsPushToken(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-signed-out", ["platform": "fcm", "token": "round4-signed-out-token", "os": "android", "userId": "u"])
            let guessed = await postBare(stack, "/v1/apps/\(stack.app)/devices/round4-signed-out/unregister", ["token": "not-its-token"])
            #expect(guessed.status == 200 && guessed.json["removed"] as? Bool == false, "\(guessed)")
            try await stack.expectOK("GET", "/devices/round4-signed-out")
            let registrar = HeraldRegistrar(gateway: URL(string: "http://127.0.0.1:\(stack.gateway.port)")!, app: stack.app) { _ in
                throw TestFailure("signed out: the kit must not ask for a client token")
            }
            try await registrar.unregisterDevice(deviceId: "round4-signed-out", token: "round4-signed-out-token")
            #expect(await stack.call("GET", "/devices/round4-signed-out").status == 404)
            try await registrar.unregisterDevice(deviceId: "round4-signed-out", token: "round4-signed-out-token")
        }

        /// "Last write wins": B signs in on A's phone and registers its push token; A's next message goes nowhere.
        static func anotherUserSigningInOnThePhoneTakesItOver(_ stack: HeraldStack) async throws {
            let alice = try await ClientTokenTests.token(stack, user: "round4-alice")
            let bob = try await ClientTokenTests.token(stack, user: "round4-bob-phone")
            let phone: [String: Any] = ["platform": "fcm", "token": "round4-shared-phone-token", "os": "android"]
            #expect(await stack.call("PUT", "/devices/round4-phone", phone, bearer: alice).status == 200)
            // An id without its push token takes nothing over.
            var other = phone
            other["token"] = "round4-bobs-own-token"
            #expect(await stack.call("PUT", "/devices/round4-phone", other, bearer: bob).status == 403)
            let moved = await stack.call("PUT", "/devices/round4-phone", phone, bearer: bob)
            #expect(moved.status == 200, "\(moved)")
            let device = try await stack.expectOK("GET", "/devices/round4-phone")
            #expect("\(device)".contains("round4-bob-phone") && !"\(device)".contains("round4-alice"), "\(device)")
            var message = try UpstreamFixture.body("upstra-message-created")
            message["recipients"] = ["round4-alice"]
            let sent = try await stack.expectOK("POST", "/upstra/events", message)
            let eventId = try #require(sent["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "alice's message resolved") {
                let answer = await stack.call("GET", "/events/\(eventId)")
                return (answer.json["event"] as? [String: Any])?["resolved"] as? Bool == true
            }
            let deliveries = await stack.deliveries(of: eventId)
            #expect(deliveries.allSatisfy { $0["reason"] as? String == "no audience" }, "alice has no device left: \(deliveries)")
            #expect(stack.received("round4-shared-phone-token").isEmpty)
        }

        /// The sender of a message listed among the recipients gets no push about it.
        static func theActorIsNotNotifiedOfTheirOwnMessage(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-ann-phone", ["platform": "fcm", "token": "round4-ann-token", "os": "android", "userId": "round4-actor"])
            try await stack.expectOK("PUT", "/devices/round4-bo-phone", ["platform": "fcm", "token": "round4-bo-token", "os": "android", "userId": "round4-member"])
            var message = try UpstreamFixture.body("upstra-message-created")
            message["actor"] = ["id": "round4-actor", "displayName": "Ann"]
            message["recipients"] = ["round4-actor", "round4-member"]
            let sent = try await stack.expectOK("POST", "/upstra/events", message)
            try await eventually(timeout: .seconds(60), "the member's push") { !stack.received("round4-bo-token").isEmpty }
            let deliveries = await stack.deliveries(of: try #require(sent["eventId"] as? String))
            #expect(deliveries.count == 1 && stack.received("round4-ann-token").isEmpty, "\(deliveries)")
        }

        /// A one-to-one conversation without a name, an actor without one, an empty text.
        static func anUnnamedChannelIsPushed(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-dm-phone", ["platform": "fcm", "token": "round4-dm-token", "os": "android", "userId": "round4-bob"])
            try await stack.expectOK("POST", "/upstra/events", try UpstreamFixture.body("upstra-direct-message-unnamed"))
            try await eventually(timeout: .seconds(60), "the direct message") { !stack.received("round4-dm-token").isEmpty }
            let notification = try #require(stack.received("round4-dm-token").first?["notification"] as? [String: Any])
            #expect(notification["title"] as? String == "Someone (Chat)" && notification["body"] as? String == "New message", "\(notification)")
        }

        /// 20,000 members listed; the three with devices get it.
        static func aMessageToTwentyThousandMembersIsDelivered(_ stack: HeraldStack) async throws {
            let members = (0..<20_000).map { _ in "round4-member-\(UUID().uuidString)" }
            for index in [0, 9_999, 19_999] {
                try await stack.expectOK("PUT", "/devices/round4-big-\(index)", ["platform": "fcm", "token": "round4-big-token-\(index)", "os": "android", "userId": members[index]])
            }
            var message = try UpstreamFixture.body("upstra-message-created")
            message["recipients"] = members
            try await stack.expectOK("POST", "/upstra/events", message)
            try await eventually(timeout: .seconds(120), "the registered members' pushes") {
                [0, 9_999, 19_999].allSatisfy { !stack.received("round4-big-token-\($0)").isEmpty }
            }
        }

        /// "You must enable them for the device's notification configuration": nothing before
        /// `initEmailNotifications`, then every email, an empty subject and sender too.
        static func sudoEmailWaitsForTheDevicesOptIn(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-mail-phone", ["platform": "fcm", "token": "round4-mail-token", "os": "android", "userId": "round4-mail-user"])
            let key = try AddressKeyPair.generate(keyId: "round4-address-key")
            try await stack.expectOK("PUT", "/email/addresses/round4-address/key", ["keyId": "round4-address-key", "publicKey": key.registration.publicKey, "owner": "round4-mail-user"])
            var mail = try UpstreamFixture.body("email-empty-subject")
            let before = try await stack.expectOK("POST", "/email/messages", mail)
            let beforeId = try #require(before["eventId"] as? String)
            try await eventually(timeout: .seconds(60), "the first email filtered") {
                (await stack.deliveries(of: beforeId)).first?["status"] as? String == "filtered"
            }
            #expect(stack.received("round4-mail-token").isEmpty)
            // The app turns email on as the seed's snippet does; the registrar carries a key here.
            let registrar = HeraldRegistrar(gateway: URL(string: "http://127.0.0.1:\(stack.gateway.port)")!, app: stack.app) { _ in stack.key }
            var configuration = NotificationConfiguration()
            configuration.initEmailNotifications()
            try await registrar.setConfiguration(configuration, deviceId: "round4-mail-phone")
            mail["messageId"] = "round4-mail-2"
            try await stack.expectOK("POST", "/email/messages", mail)
            try await eventually(timeout: .seconds(60), "the email after opting in") { !stack.received("round4-mail-token").isEmpty }
        }

        static func aVerityForwardWithoutATypeIsPushed(_ stack: HeraldStack) async throws {
            try await stack.expectOK("POST", "/evernym/notify", try UpstreamFixture.body("verity-forward-no-msgtype"))
            try await eventually(timeout: .seconds(60), "the untyped forward") { !stack.received("round4-verity-token").isEmpty }
            let data = try #require(stack.received("round4-verity-token").first?["data"] as? [String: String])
            #expect(data["msgId"] == "verity-no-type-1" && data["msgType"] == nil, "\(data)")
        }

        static func aWebcomRemovedListIsAccepted(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/round4-webcom", ["platform": "fcm", "token": "round4-webcom-token", "os": "android", "userId": "round4-webcom-user"])
            try await stack.expectOK("POST", "/webcom/events", try UpstreamFixture.body("webcom-removed-list"))
            try await eventually(timeout: .seconds(60), "the children update") { !stack.received("round4-webcom-token").isEmpty }
            let data = try #require(stack.received("round4-webcom-token").first?["data"] as? [String: String])
            #expect(data["removed"] == #"["c1","c2"]"#, "\(data)")
        }

        /// The app's `webpush.allowPrivateNetworks: true`: a subscription on a loopback address registers.
        static func aPrivateSubscriptionIsTakenWhereTheAppAllowsIt(_ stack: HeraldStack) async throws {
            let keys = DeviceKeyPair.generate(keyId: "round4-browser").registration
            var subscription: [String: Any] = ["endpoint": "https://127.0.0.1:9/push/round4", "keys": ["p256dh": keys.p256dh, "auth": keys.auth]]
            let answer = await stack.call("PUT", "/devices/round4-browser", ["platform": "webpush", "subscription": subscription, "userId": "u"])
            #expect(answer.status == 200, "\(answer)")
            // A multicast address is no network the setting opens.
            subscription["endpoint"] = "https://224.0.0.1/push/round4"
            let refused = await stack.call("PUT", "/devices/round4-browser-2", ["platform": "webpush", "subscription": subscription, "userId": "u"])
            #expect(refused.status == 422, "\(refused)")
        }
    }
}
