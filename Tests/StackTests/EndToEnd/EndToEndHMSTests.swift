import Crypto
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Testing

/// Huawei devices through the real executables: a datasync event reaches HMS devices as Push
/// Kit messages (plain, and encrypted with the device's key), an illegal token is revoked,
/// and a `kill -9` of herald-hms mid-stream loses nothing.
extension ServiceProcesses {
    @Suite("End to end on Push Kit")
    struct EndToEndHMSTests {
        @Test func aDatasyncEventReachesHMSDevicesPlainAndEncryptedAndAnIllegalTokenIsRevoked() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 1)
            do {
                try await Self.plainAndEncrypted(stack)
                // Push Kit lists the token as illegal (80300007 for a request of one token).
                try await EndToEndTests.aDeadTokenIsRevokedAndNotUsedAgain(stack, platform: "hms", token: "unregistered-huawei", device: "hr-phone", user: "hr")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// h1's phone registered no key (plain); h2's registered a P-256 key (aes128gcm).
        static func plainAndEncrypted(_ stack: HeraldStack) async throws {
            let deviceKey = P256.KeyAgreement.PrivateKey()
            let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            try await stack.expectOK("PUT", "/devices/h1-phone", ["platform": "hms", "token": "h1-token", "os": "android", "userId": "h1"])
            try await stack.expectOK("PUT", "/devices/h2-phone", [
                "platform": "hms", "token": "h2-token", "os": "android", "userId": "h2",
                "key": ["keyId": "k-h2", "p256dh": Base64URL.encode(deviceKey.publicKey.x963Representation), "auth": Base64URL.encode(auth)],
            ])
            let accepted = try await stack.expectOK("POST", "/webcom/events", [
                "path": "/boards/7/title", "event": "value.changed", "value": "Roadmap", "recipients": ["h1", "h2"],
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "both HMS deliveries delivered") {
                await stack.deliveries(of: eventId).compactMap { $0["status"] as? String } == ["delivered", "delivered"]
            }
            let plainMessage = try #require(stack.received("h1-token", provider: "hms").first)
            let plain = try #require((plainMessage["data"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
            #expect(plain["event"] == eventId && plain["kind"] == "value.changed" && plain["path"] == "/boards/7/title", "\(plain)")
            #expect((plainMessage["android"] as? [String: Any])?["bi_tag"] as? String != nil)

            let sealedMessage = try #require(stack.received("h2-token", provider: "hms").first)
            let sealed = try #require((sealedMessage["data"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
            #expect(sealed["enc"] == "aes128gcm" && sealed["kid"] == "k-h2" && sealed["path"] == nil, "nothing in clear: \(sealed.keys.sorted())")
            let body = try #require(Base64URL.decode(sealed["payload"] ?? ""))
            let plaintext = try WebPushEncryption.decrypt(body, privateKey: deviceKey, authSecret: auth)
            let opened = try #require(try JSONSerialization.jsonObject(with: plaintext) as? [String: Any])
            #expect(opened["event"] as? String == eventId && opened["path"] as? String == "/boards/7/title", "\(opened)")
            #expect(stack.sandbox.state.messages(provider: "fcm").isEmpty, "HMS devices are not sent through FCM")
        }

        @Test func aKillMinus9OfHMSMidStreamLosesNoDeliveryAndRepeatsOnlyWhatWasInFlight() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 2)
            do {
                // Events of 5 tokens each, so sends are multicasts; each answer takes 300 ms.
                let events = 80
                let perEvent = 5
                let tokens = (0..<events).map { event in (0..<perEvent).map { "slow-300-hkill-\(event)-\($0)" } }
                let poster = Task {
                    for (index, group) in tokens.enumerated() {
                        try await stack.postEvent([
                            "id": "hkill-\(index)", "source": "api", "kind": "test",
                            "audience": ["tokens": group.map { ["platform": "hms", "token": $0] }],
                        ])
                    }
                }
                let all = Set(tokens.flatMap { $0 })
                try await eventually(timeout: .seconds(240), "a third of the deliveries") {
                    stack.sandbox.state.messages(provider: "hms", limit: 10_000).count >= all.count / 3
                }
                stack.hmsDispatchers[0].killHard()
                try await within(.seconds(120), "the upstream to finish posting") { try await poster.value }
                try await eventually(timeout: .seconds(240), "every delivery") {
                    Set(stack.sandbox.state.messages(provider: "hms", limit: 10_000).map(\.token)).count == all.count
                }
                let received = stack.sandbox.state.messages(provider: "hms", limit: 10_000).map(\.token)
                let requests = stack.sandbox.state.sendRequests(provider: "hms", limit: 10_000)
                print("end-to-end kill -9 of herald-hms: \(all.count) deliveries in \(events) events, \(received.count) token sends in \(requests.count) requests, \(received.count - all.count) repeated")
                #expect(Set(received) == all)
                #expect(Dictionary(grouping: received, by: { $0 }).values.allSatisfy { $0.count <= 2 }, "only a send in flight at the kill is repeated")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
