import Foundation
import HeraldClient
import HeraldTestSupport
import Synchronization
import Testing

/// The kits' registrars against the real gateway: each call carries the client token its
/// provider gives; an expired token is answered 401, the registrar asks for a fresh one
/// (`refresh` true) and succeeds with it; a second refusal is the kit's `unauthorized` error.
extension ServiceProcesses {
    @Suite("The kits' registrars with client tokens", .needs(.python))
    struct ClientKitTokenTests {
        /// An expired token and a good one for `user`, minted by PyJWT.
        static func tokens(_ stack: HeraldStack, user: String) async throws -> (expired: String, good: String) {
            var expired = ClientTokenTests.claims(stack, user: user)
            let now = Int(Date().timeIntervalSince1970)
            expired["iat"] = now - 900; expired["exp"] = now - 300
            let minted = try await ClientTokenTests.mint(stack, [("HS256", expired, nil), ("ES256", ClientTokenTests.claims(stack, user: user), nil)])
            return (minted[0], minted[1])
        }

        @Test func theSwiftKitRetriesOnceWithAFreshTokenAfterA401() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0)
            do {
                let (expired, good) = try await Self.tokens(stack, user: "swift-kit-user")
                let asked = Mutex<[Bool]>([])
                let registrar = HeraldRegistrar(gateway: URL(string: "http://127.0.0.1:\(stack.gateway.port)")!, app: stack.app) { refresh in
                    asked.withLock { $0.append(refresh) }
                    return refresh ? good : expired
                }
                try await registrar.registerDevice(deviceId: "swift-kit-phone", token: "swift-kit-token", os: "android")
                #expect(asked.withLock { $0 } == [false, true])
                let (configuration, tag) = try await registrar.configuration(deviceId: "swift-kit-phone")
                var changed = configuration
                changed.setNotificationsEnabled(false, forEmailAddressWithId: "addr-1")
                #expect(try await registrar.setConfiguration(changed, deviceId: "swift-kit-phone", ifMatch: tag) != tag)
                let listed = try await stack.expectOK("GET", "/users/swift-kit-user/devices")
                #expect((listed["devices"] as? [Any])?.count == 1, "\(listed)")

                let refused = HeraldRegistrar(gateway: URL(string: "http://127.0.0.1:\(stack.gateway.port)")!, app: stack.app) { _ in expired }
                await #expect(throws: HeraldClientError(.unauthorized, "PUT /devices/other: 401 the client token expired", status: 401)) {
                    try await refused.registerDevice(deviceId: "other", token: "other-token", os: "android")
                }
                try await registrar.unregisterDevice(deviceId: "swift-kit-phone", token: "swift-kit-token")
                #expect(await stack.call("GET", "/devices/swift-kit-phone").status == 404)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test(.needs(.java))
        func theJavaKitRetriesOnceWithAFreshTokenAfterA401() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0)
            do {
                let (expired, good) = try await Self.tokens(stack, user: "java-kit-user")
                let request: [String: Any] = [
                    "op": "register", "gateway": "http://127.0.0.1:\(stack.gateway.port)", "app": stack.app,
                    "deviceId": "java-kit-phone", "token": "java-kit-token", "os": "android",
                ]
                var retried = request
                retried["tokens"] = [expired, good]
                let answer = try await JavaKit.run(retried)
                #expect(answer["refreshes"] as? [Bool] == [false, true, false], "register, then read the configuration: \(answer)")
                #expect(answer["error"] == nil && (answer["entityTag"] as? String)?.isEmpty == false, "\(answer)")
                let listed = try await stack.expectOK("GET", "/users/java-kit-user/devices")
                #expect((listed["devices"] as? [Any])?.count == 1, "\(listed)")

                var refused = request
                refused["tokens"] = [expired, expired]
                let failed = try await JavaKit.run(refused)
                #expect(failed["refreshes"] as? [Bool] == [false, true], "\(failed)")
                #expect((failed["error"] as? [String: Any])?["reason"] as? String == "unauthorized", "\(failed)")
                #expect((failed["error"] as? [String: Any])?["status"] as? Int == 401, "\(failed)")

                // Signed out: the kit removes the device by its push token, asking for no client token.
                let unregister: [String: Any] = [
                    "op": "unregister", "gateway": "http://127.0.0.1:\(stack.gateway.port)", "app": stack.app, "deviceId": "java-kit-phone", "token": "java-kit-token",
                ]
                let removed = try await JavaKit.run(unregister)
                #expect(removed["error"] == nil && removed["tokensAsked"] as? Int == 0, "\(removed)")
                #expect(await stack.call("GET", "/devices/java-kit-phone").status == 404)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
