import _CryptoExtras
import Crypto
import Foundation
import HeraldClient
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Testing

/// The five integrations through the real executables: each registers its devices and posts
/// its own event shape at the gateway, and the test reads what the provider sandbox
/// received. A `kill -9` of a dispatcher mid-stream loses nothing.
extension ServiceProcesses {
    @Suite("End to end")
    struct EndToEndTests {
        @Test func everyIntegrationReachesItsDevicesThroughTheWholePipeline() async throws {
            let stack = try await HeraldStack.start()
            do {
                try await Self.smartID(stack)
                try await Self.evernym(stack)
                try await Self.upstraWithEncryptionAndAFilteredRecipient(stack)
                try await Self.sudoEmailEncryptedForTheAddress(stack)
                try await Self.webcom(stack)
                try await Self.anUnregisteredTokenIsRevokedAndNotUsedAgain(stack)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        static func smartID(_ stack: HeraldStack) async throws {
            try await stack.expectOK("POST", "/smartid/devices", ["profileID": ["profile-1"], "OS": "Android", "deviceID": "sid-token"])
            try await stack.expectOK("POST", "/smartid/push", ["messageId": "sid-1", "pushId": "profile-1", "requestor": "Bank", "type": "SIGN", "timeToLive": 90])
            try await eventually(timeout: .seconds(30), "the Smart ID push") { !stack.received("sid-token").isEmpty }
            let message = stack.received("sid-token")[0]
            let data = message["data"] as? [String: String]
            #expect(data?["messageId"] == "sid-1" && data?["requestor"] == "Bank" && data?["type"] == "SIGN" && data?["kind"] == "sign")
            let ttl = (message["android"] as? [String: Any])?["ttl"] as? String
            #expect(ttl.flatMap { Int($0.dropLast()) }.map { (60...90).contains($0) } == true, "TTL from timeToLive: \(ttl ?? "none")")

            // Without timeToLive: the app's configured TTL for Smart ID's auth (120 s), not four weeks.
            try await stack.expectOK("POST", "/smartid/devices", ["profileID": ["profile-2"], "OS": "Android", "deviceID": "sid-token-2"])
            try await stack.expectOK("POST", "/smartid/push", try UpstreamFixture.body("smartid-push-auth"))
            try await eventually(timeout: .seconds(30), "the Smart ID push without timeToLive") { !stack.received("sid-token-2").isEmpty }
            let configured = (stack.received("sid-token-2")[0]["android"] as? [String: Any])?["ttl"] as? String
            #expect(configured.flatMap { Int($0.dropLast()) }.map { (90...120).contains($0) } == true, "the configured TTL: \(configured ?? "none")")
        }

        static func evernym(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/evernym/sponsees/sponsee-1", ["id": "sponsee-1", "type": 4, "value": "FCM:evernym-token"])
            try await stack.expectOK("POST", "/evernym/notify", [
                "msgId": "ev-msg-1", "msgType": "credOffer", "sponseeDetails": "sponsee-1", "relationshipDid": "did:x:1",
                "metaData": ["msgSenderName": "Issuer"],
            ])
            try await eventually(timeout: .seconds(30), "the Evernym push") { !stack.received("evernym-token").isEmpty }
            let data = stack.received("evernym-token")[0]["data"] as? [String: String]
            #expect(data?["msgId"] == "ev-msg-1" && data?["msgSenderName"] == "Issuer")

            // A forward as Evernym's documents show it (Fixtures/evernym-forward-earlier.json):
            // sponseeDetails is the value the sponsee gave update_com_method ("FCM:{pushToken}"),
            // no sponsee is registered, and msgType is only in metaData (the earlier shape).
            let earlier = try UpstreamFixture.body("evernym-forward-earlier")
            try await stack.expectOK("POST", "/evernym/notify", earlier)
            try await eventually(timeout: .seconds(30), "the direct Evernym push") { !stack.received("evernym-direct-token").isEmpty }
            let direct = stack.received("evernym-direct-token")[0]["data"] as? [String: String]
            #expect(direct?["msgId"] == "ev-msg-2" && direct?["msgType"] == "proofReq" && direct?["relationshipDid"] == "Rgj7LVEonrMzcRC1rhkx76"
                    && direct?["msgSenderName"] == "Faber College", "\(direct ?? [:])")

            // The SDK's config object (Fixtures/evernym-com-method-config.json) as JSON text:
            // its FCM com method, again with no registration.
            let config = try JSONSerialization.data(withJSONObject: try UpstreamFixture.body("evernym-com-method-config"))
            try await stack.expectOK("POST", "/evernym/notify", [
                "msgId": "ev-msg-3", "msgType": "credOffer", "relationshipDid": "did:x:3", "sponseeDetails": String(decoding: config, as: UTF8.self),
            ])
            try await eventually(timeout: .seconds(30), "the push to the config's com method") { !stack.received("evernym-config-token").isEmpty }
            #expect((stack.received("evernym-config-token")[0]["data"] as? [String: String])?["msgId"] == "ev-msg-3")
        }

        /// u1's phone registered a P-256 key, so its payload is aes128gcm; u2 muted the channel.
        static func upstraWithEncryptionAndAFilteredRecipient(_ stack: HeraldStack) async throws {
            let deviceKey = P256.KeyAgreement.PrivateKey()
            let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            try await stack.expectOK("PUT", "/devices/u1-phone", [
                "platform": "fcm", "token": "u1-token", "os": "android", "userId": "u1", "locale": "en",
                "key": ["keyId": "k-u1", "p256dh": Base64URL.encode(deviceKey.publicKey.x963Representation), "auth": Base64URL.encode(auth)],
            ])
            try await stack.expectOK("PUT", "/devices/u2-phone", ["platform": "fcm", "token": "u2-token", "os": "android", "userId": "u2"])
            try await stack.expectOK("PUT", "/users/u2/channels/general/preferences", ["enabled": false])
            let accepted = try await stack.expectOK("POST", "/upstra/events", [
                "event": "message.created", "channel": ["id": "general", "displayName": "General"],
                "actor": ["id": "ann", "displayName": "Ann"], "message": ["type": "text", "text": "Hello u1"], "recipients": ["u1", "u2"],
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "both deliveries settled") {
                await Set(stack.deliveries(of: eventId).compactMap { $0["status"] as? String }) == ["delivered", "filtered"]
            }
            let data = try #require(stack.received("u1-token").first?["data"] as? [String: String])
            #expect(data["enc"] == "aes128gcm" && data["kid"] == "k-u1")
            let body = try #require(Base64URL.decode(data["payload"] ?? ""))
            let plaintext = try WebPushEncryption.decrypt(body, privateKey: deviceKey, authSecret: auth)
            let plain = try #require(try JSONSerialization.jsonObject(with: plaintext) as? [String: Any])
            #expect(plain["kind"] as? String == "message.created" && plain["event"] as? String == eventId)
            #expect(String(describing: plain).contains("Hello u1"), "the rendered alert travels inside: \(plain)")
            #expect(stack.received("u2-token").isEmpty && stack.sandbox.state.sendAttempts(provider: "fcm", token: "u2-token") == 0)
            let filtered = await stack.deliveries(of: eventId).first { $0["status"] as? String == "filtered" }
            #expect(filtered?["reason"] as? String == "filtered by channel")
        }

        /// The address's RSA key encrypts the metadata (JWE) for its owner's device.
        static func sudoEmailEncryptedForTheAddress(_ stack: HeraldStack) async throws {
            let addressKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
            try await stack.expectOK("PUT", "/devices/owner-phone", ["platform": "fcm", "token": "owner-token", "os": "ios", "userId": "owner-1"])
            try await stack.expectOK("PUT", "/email/addresses/addr-1/key", ["keyId": "rsa-1", "publicKey": addressKey.publicKey.pemRepresentation, "owner": "owner-1"])
            try await stack.enableEmail(deviceId: "owner-phone")
            try await stack.expectOK("POST", "/email/messages", [
                "emailAddressId": "addr-1", "sudoId": "sudo-1", "owner": "owner-1", "messageId": "mail-1",
                "from": "alice@example.com", "subject": "Lunch?", "receivedAt": "2026-11-21T10:00:00Z",
            ])
            try await eventually(timeout: .seconds(30), "the email push") { !stack.received("owner-token").isEmpty }
            let message = stack.received("owner-token")[0]
            let data = try #require(message["data"] as? [String: String])
            #expect(data["enc"] == "jwe" && data["kid"] == "rsa-1" && data["from"] == nil, "nothing in clear: \(data.keys.sorted())")
            let (_, plaintext) = try JWE.decrypt(data["payload"] ?? "", with: addressKey)
            let plain = try #require(try JSONSerialization.jsonObject(with: plaintext) as? [String: Any])
            #expect(plain["from"] as? String == "alice@example.com" && plain["subject"] as? String == "Lunch?")
            let aps = ((message["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
            #expect(aps?["mutable-content"] as? Int == 1, "iOS gets mutable-content to decrypt in an extension: \(message)")
            try await Self.twoClientsChangingOneConfiguration(stack)
        }

        /// Two copies of Sudo's SDK read the phone's configuration and change it with the
        /// kit's helpers: the first write (with its If-Match) wins, the second, stale, is
        /// refused 412 and changes nothing; the first's switch then filters the address's email.
        static func twoClientsChangingOneConfiguration(_ stack: HeraldStack) async throws {
            let read = await stack.exchange("GET", "/devices/owner-phone/configuration")
            let tag = try #require(read.headers["etag"], "\(read.headers)")
            var first = try HeraldClient.NotificationConfiguration(reply: read.body)
            var second = first
            first.initEmailNotifications()
            first.setNotificationsEnabled(false, forEmailAddressWithId: "addr-1")
            second.setNotificationsEnabled(false, forSudoWithId: "sudo-9")
            let written = await stack.exchange("PUT", "/devices/owner-phone/configuration", body: try first.requestBody(), headers: ["If-Match": tag])
            #expect(written.status == 200 && written.headers["etag"] != tag, "\(written.status) \(written.headers)")
            let stale = await stack.exchange("PUT", "/devices/owner-phone/configuration", body: try second.requestBody(), headers: ["If-Match": tag])
            #expect(stale.status == 412 && stale.headers["content-type"] == "application/problem+json", "\(stale.status)")
            let now = try HeraldClient.NotificationConfiguration(reply: await stack.exchange("GET", "/devices/owner-phone/configuration").body)
            #expect(now == first && !now.areNotificationsEnabled(forEmailAddressWithId: "addr-1"))
            let accepted = try await stack.expectOK("POST", "/email/messages", [
                "emailAddressId": "addr-1", "sudoId": "sudo-1", "owner": "owner-1", "messageId": "mail-2",
                "from": "alice@example.com", "subject": "Again?", "receivedAt": "2026-11-21T10:05:00Z",
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "the second email filtered by the configuration") {
                await stack.deliveries(of: eventId).first?["status"] as? String == "filtered"
            }
            #expect(stack.received("owner-token").count == 1)
        }

        static func webcom(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/w-phone", ["platform": "fcm", "token": "webcom-token", "os": "android", "userId": "w1"])
            try await stack.expectOK("POST", "/webcom/events", [
                "path": "/boards/1", "event": "children.updated", "added": ["card-9": ["title": "New"]], "recipients": ["w1"],
            ])
            try await eventually(timeout: .seconds(30), "the datasync push") { !stack.received("webcom-token").isEmpty }
            let data = stack.received("webcom-token")[0]["data"] as? [String: String]
            #expect(data?["kind"] == "children.updated" && data?["path"] == "/boards/1" && data?["added"]?.contains("card-9") == true, "\(data ?? [:])")
        }

        static func anUnregisteredTokenIsRevokedAndNotUsedAgain(_ stack: HeraldStack) async throws {
            try await aDeadTokenIsRevokedAndNotUsedAgain(stack, platform: "fcm", token: "unregistered-old-phone", device: "old-phone", user: "r1")
        }

        /// The provider says the token is dead (FCM UNREGISTERED, Push Kit an illegal token):
        /// the device is removed, and the next event for its user does not try the token again.
        static func aDeadTokenIsRevokedAndNotUsedAgain(_ stack: HeraldStack, platform: String, token: String, device: String, user: String) async throws {
            try await stack.expectOK("PUT", "/devices/\(device)", ["platform": platform, "token": token, "os": "android", "userId": user])
            try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "1", "recipients": [user]])
            try await eventually(timeout: .seconds(30), "the device removed") { await stack.call("GET", "/devices/\(device)").status == 404 }
            #expect(stack.sandbox.state.sendAttempts(provider: platform, token: token) == 1)
            let second = try await stack.expectOK("POST", "/webcom/events", ["path": "/a", "event": "value.changed", "value": "2", "recipients": [user]])
            let eventId = try #require(second["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "the second event resolved to no audience") {
                await stack.deliveries(of: eventId).first?["reason"] as? String == "no audience"
            }
            #expect(stack.sandbox.state.sendAttempts(provider: platform, token: token) == 1, "the dead token was not used again")
        }

        @Test func aKillMinus9OfADispatcherMidStreamLosesNoDelivery() async throws {
            let stack = try await HeraldStack.start(dispatchers: 2)
            do {
                // Each send takes 300 ms at the sandbox, so both dispatchers hold sends in flight.
                let count = 300
                let tokens = (0..<count).map { "slow-300-kill-\($0)" }
                let poster = Task {
                    for (index, token) in tokens.enumerated() {
                        try await stack.postEvent([
                            "id": "kill-\(index)", "source": "api", "kind": "test", "audience": ["tokens": [["platform": "fcm", "token": token]]],
                        ])
                    }
                }
                try await eventually(timeout: .seconds(240), "a third of the deliveries") {
                    stack.sandbox.state.messages(provider: "fcm", limit: 10_000).count >= count / 3
                }
                stack.dispatchers[0].killHard()
                try await within(.seconds(120), "the upstream to finish posting") { try await poster.value }
                try await eventually(timeout: .seconds(240), "every delivery") {
                    Set(stack.sandbox.state.messages(provider: "fcm", limit: 10_000).map(\.token)).count == count
                }
                let received = stack.sandbox.state.messages(provider: "fcm", limit: 10_000).map(\.token)
                print("end-to-end kill -9: \(count) events, \(received.count) sends, \(received.count - count) repeated")
                #expect(Set(received) == Set(tokens))
                #expect(Dictionary(grouping: received, by: { $0 }).values.allSatisfy { $0.count <= 2 }, "only a send in flight at the kill is repeated")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
