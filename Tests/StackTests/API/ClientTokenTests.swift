import _CryptoExtras
import Crypto
import Foundation
import HeraldTestSupport
import Testing

/// Device-side client tokens through the real executables: tokens minted by PyJWT (an
/// independent JWT library, `Tests/Interop/client_token.py`) with the stack's HS256 secret
/// and ES256 key, presented to the gateway as an app would. A token acts for its user alone:
/// what it may do succeeds, anything else is 403 and changes nothing, and a token that is
/// expired, for another app, wrongly signed, unsigned or too long-lived is 401.
extension ServiceProcesses {
    @Suite("Client tokens", .needs(.python))
    struct ClientTokenTests {
        /// Claims for `user` on the stack's app, issued now and living `lifetime` seconds.
        static func claims(_ stack: HeraldStack, user: String, pushIds: [String]? = nil, lifetime: Int = 600) -> [String: Any] {
            let now = Int(Date().timeIntervalSince1970)
            var claims: [String: Any] = ["aud": stack.app, "sub": user, "iat": now, "exp": now + lifetime]
            if let pushIds { claims["pushIds"] = pushIds }
            return claims
        }

        /// Tokens minted by PyJWT: each `(alg, claims)` signed with the stack's key for that alg
        /// (`key` in place of it when given).
        static func mint(_ stack: HeraldStack, _ tokens: [(alg: String, claims: [String: Any], key: String?)]) async throws -> [String] {
            let script = PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/client_token.py").path
            let specs: [[String: Any]] = tokens.map { token in
                let key = token.key ?? (token.alg == "ES256" ? stack.clientTokenPrivateKeyPEM : stack.clientTokenSecret)
                return ["alg": token.alg, "claims": token.claims, "key": key]
            }
            let reply = try await PythonChecker.run(script, ["tokens": specs])
            return try #require(reply["tokens"] as? [String])
        }

        static func token(_ stack: HeraldStack, _ alg: String = "HS256", user: String, pushIds: [String]? = nil) async throws -> String {
            try await mint(stack, [(alg, claims(stack, user: user, pushIds: pushIds), nil)])[0]
        }

        @Test(arguments: ["HS256", "ES256"])
        func everyCallATokenMayMakeSucceeds(alg: String) async throws {
            let stack = try await HeraldStack.start()
            do {
                let user = "user-\(alg)"
                let token = try await Self.token(stack, alg, user: user, pushIds: [" profile-\(alg) "])
                func expect(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
                    let answer = await stack.call(method, path, body, bearer: token)
                    #expect(answer.status == 200, "\(method) \(path): \(answer.status) \(answer.json)")
                    return answer.json
                }
                // The device is the token's user's without naming one.
                let device = try await expect("PUT", "/devices/phone-\(alg)", ["platform": "fcm", "token": "client-\(alg)-token", "os": "android"])
                #expect(((device["device"] as? [String: Any])?["registration"] as? [String: Any])?["userId"] as? String == user, "\(device)")
                _ = try await expect("PUT", "/devices/phone-\(alg)", ["platform": "fcm", "token": "client-\(alg)-token-2", "os": "android", "userId": user, "locale": "et-EE"])
                _ = try await expect("GET", "/devices/phone-\(alg)")
                let listed = try await expect("GET", "/users/\(user)/devices")
                #expect((listed["devices"] as? [Any])?.count == 1, "\(listed)")
                _ = try await expect("POST", "/smartid/devices", ["profileID": "profile-\(alg)", "OS": "Android", "deviceID": "sid-client-\(alg)-token"])
                _ = try await expect("PUT", "/devices/phone-\(alg)/configuration", ["entries": [["service": "email", "enabled": false]]])
                _ = try await expect("GET", "/devices/phone-\(alg)/configuration")
                _ = try await expect("PUT", "/users/\(user)/preferences", ["enabled": true, "mutedKinds": ["promo"]])
                let preferences = try await expect("GET", "/users/\(user)/preferences")
                #expect(((preferences["user"] as? [String: Any])?["mutedKinds"] as? [String]) == ["promo"], "\(preferences)")
                _ = try await expect("PUT", "/users/\(user)/channels/c-1/preferences", ["enabled": false])
                _ = try await expect("GET", "/users/\(user)/channels/c-1/preferences")
                let addressKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
                _ = try await expect("PUT", "/email/addresses/addr-\(alg)/key", ["keyId": "k-1", "publicKey": addressKey.publicKey.pemRepresentation])
                _ = try await expect("PUT", "/email/addresses/addr-\(alg)/key", ["keyId": "k-2", "publicKey": addressKey.publicKey.pemRepresentation, "owner": user, "deviceId": "phone-\(alg)"])
                let removed = try await expect("DELETE", "/devices/phone-\(alg)")
                #expect(removed["removed"] as? Bool == true, "\(removed)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test func everyOtherCallIsForbiddenAndChangesNothing() async throws {
            let stack = try await HeraldStack.start()
            do {
                // The victim's things, registered by the tenant's server with its key.
                let addressKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
                try await stack.expectOK("PUT", "/devices/victim-phone", ["platform": "fcm", "token": "victim-token", "os": "android", "userId": "victim"])
                try await stack.expectOK("POST", "/smartid/devices", ["profileID": "victim-profile", "OS": "Android", "deviceID": "victim-sid-token"])
                try await stack.expectOK("PUT", "/email/addresses/victim-addr/key", ["keyId": "victim-key", "publicKey": addressKey.publicKey.pemRepresentation, "owner": "victim"])
                try await stack.expectOK("PUT", "/users/victim/preferences", ["enabled": true, "mutedKinds": ["promo"]])
                let before = try await stack.expectOK("GET", "/devices")
                let token = try await Self.token(stack, user: "mallory", pushIds: ["mallory-profile"])
                let otherKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
                let forbidden: [(String, String, [String: Any]?)] = [
                    ("GET", "/devices", nil),
                    ("GET", "/users/victim/devices", nil),
                    ("GET", "/devices/victim-phone", nil),
                    ("PUT", "/devices/victim-phone", ["platform": "fcm", "token": "mallory-token", "os": "android"]),
                    ("PUT", "/devices/mallory-phone", ["platform": "fcm", "token": "mallory-token", "os": "android", "userId": "victim"]),
                    ("PUT", "/devices/mallory-phone", ["platform": "fcm", "token": "mallory-token", "os": "android", "pushIds": ["victim-profile"]]),
                    // (The victim's push token itself, a Smart ID deviceID among them, would move the phone
                    // to Mallory: possession of the token is the proof, "last write wins"; UpstreamRound4Tests shows it.)
                    ("DELETE", "/devices/victim-phone", nil),
                    ("DELETE", "/devices/victim-sid-token", nil),
                    ("GET", "/devices/victim-phone/configuration", nil),
                    ("PUT", "/devices/victim-phone/configuration", ["entries": [["service": "email", "enabled": false]]]),
                    ("GET", "/users/victim/preferences", nil),
                    ("PUT", "/users/victim/preferences", ["enabled": false]),
                    ("GET", "/users/victim/channels/c-1/preferences", nil),
                    ("PUT", "/users/victim/channels/c-1/preferences", ["enabled": false]),
                    ("POST", "/smartid/devices", ["profileID": "victim-profile", "OS": "Android", "deviceID": "mallory-sid-token"]),
                    ("PUT", "/email/addresses/victim-addr/key", ["keyId": "mallory-key", "publicKey": otherKey]),
                    ("PUT", "/email/addresses/other-addr/key", ["keyId": "mallory-key", "publicKey": otherKey, "owner": "victim"]),
                    ("POST", "/events", ["id": "e-1", "source": "api", "kind": "chat.message", "audience": ["users": ["victim"]], "data": ["text": "hi"]]),
                    ("POST", "/smartid/push", ["messageId": "m-1", "pushId": "victim-profile", "requestor": "Bank", "type": "AUTH"]),
                    ("GET", "/events", nil),
                    ("GET", "/events/\(smartIDEventId(messageId: "m-1", pushId: "victim-profile"))", nil),
                    ("GET", "/stats", nil),
                    ("GET", "/settings/notifications", nil),
                    ("PUT", "/settings/notifications", ["enabled": false]),
                    ("PUT", "/evernym/sponsees/s-1", ["type": 4, "value": "FCM:mallory-token"]),
                ]
                for (method, path, body) in forbidden {
                    let answer = await stack.call(method, path, body, bearer: token)
                    #expect(answer.status == 403, "\(method) \(path): \(answer.status) \(answer.json)")
                    #expect((answer.json["detail"] as? String)?.isEmpty == false, "\(method) \(path): a problem document saying why")
                }
                // Nothing changed: the same devices, the victim's preferences, no event.
                let after = try await stack.expectOK("GET", "/devices")
                #expect(NSDictionary(dictionary: before).isEqual(to: after), "devices changed: \(before) → \(after)")
                let preferences = try await stack.expectOK("GET", "/users/victim/preferences")
                #expect(((preferences["user"] as? [String: Any])?["enabled"] as? Bool) == true, "\(preferences)")
                #expect(await stack.call("GET", "/events/\(smartIDEventId(messageId: "m-1", pushId: "victim-profile"))").status == 404)
                // The victim's address is still the victim's: an email to it reaches the victim's phone alone.
                try await stack.enableEmail(deviceId: "victim-phone")
                try await stack.expectOK("POST", "/email/messages", [
                    "emailAddressId": "victim-addr", "sudoId": "sudo-1", "owner": "victim", "messageId": "mail-1", "from": "a@example.com", "subject": "s", "receivedAt": "2026-11-28T10:00:00Z",
                ])
                try await eventually(timeout: .seconds(30), "the victim's email push") { !stack.received("victim-token").isEmpty }
                let data = try #require(stack.received("victim-token")[0]["data"] as? [String: String])
                #expect(data["kid"] == "victim-key", "still encrypted to the victim's key: \(data.keys.sorted())")
                #expect(stack.received("mallory-token").isEmpty)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test func refusedTokensAre401SayingWhy() async throws {
            let stack = try await HeraldStack.start()
            do {
                let now = Int(Date().timeIntervalSince1970)
                var expired = Self.claims(stack, user: "u")
                expired["iat"] = now - 1200; expired["exp"] = now - 600
                var otherApp = Self.claims(stack, user: "u")
                otherApp["aud"] = "another-app"
                var noAudience = Self.claims(stack, user: "u")
                noAudience["aud"] = nil
                var future = Self.claims(stack, user: "u")
                future["iat"] = now + 3600; future["exp"] = now + 3900
                var noExpiry = Self.claims(stack, user: "u")
                noExpiry["exp"] = nil
                var noUser = Self.claims(stack, user: "u")
                noUser["sub"] = nil
                let cases: [(String, (alg: String, claims: [String: Any], key: String?), String)] = [
                    ("expired", ("HS256", expired, nil), "expired"),
                    ("for another app", ("HS256", otherApp, nil), "audience"),
                    ("without an audience", ("ES256", noAudience, nil), "audience"),
                    ("signed with another secret", ("HS256", Self.claims(stack, user: "u"), String(repeating: "x", count: 40)), "signature"),
                    ("signed with another key", ("ES256", Self.claims(stack, user: "u"), P256.Signing.PrivateKey().pemRepresentation), "signature"),
                    ("unsigned (alg none)", ("none", Self.claims(stack, user: "u"), nil), "alg none"),
                    ("of an algorithm Herald does not take", ("HS512", Self.claims(stack, user: "u"), stack.clientTokenSecret), "HS512"),
                    ("living longer than maxLifetime", ("HS256", Self.claims(stack, user: "u", lifetime: 7200), nil), "maxLifetime"),
                    ("issued in the future", ("ES256", future, nil), "future"),
                    ("without an expiry", ("HS256", noExpiry, nil), "exp"),
                    ("without a user", ("HS256", noUser, nil), "sub"),
                ]
                let tokens = try await Self.mint(stack, cases.map(\.1))
                for ((name, _, says), token) in zip(cases, tokens) {
                    let answer = await stack.call("PUT", "/devices/d-1", ["platform": "fcm", "token": "t-1", "os": "android"], bearer: token)
                    #expect(answer.status == 401, "\(name): \(answer.status) \(answer.json)")
                    #expect((answer.json["detail"] as? String)?.contains(says) == true, "\(name): \(answer.json)")
                    #expect((answer.json["detail"] as? String)?.contains(stack.clientTokenSecret) == false)
                }
                // A good token on another app's path is refused the same way: the audience is this app.
                let good = try await Self.token(stack, user: "u")
                #expect(await stack.call("GET", "/users/u/preferences", bearer: good).status == 200)
                #expect(await stack.call("GET", "/users/u/preferences", app: "another-app", bearer: good).status == 401)
                #expect(await stack.call("GET", "/devices", bearer: "Bearer-less.not.ajwt").status == 401)
                #expect((try await stack.expectOK("GET", "/devices")["devices"] as? [Any])?.isEmpty == true, "no refused token registered anything")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test func aDeviceRegisteredWithAClientTokenReceivesItsPushes() async throws {
            let stack = try await HeraldStack.start()
            do {
                let token = try await Self.token(stack, "ES256", user: "token-user", pushIds: ["token-profile"])
                let registered = await stack.call("PUT", "/devices/token-phone", ["platform": "fcm", "token": "token-phone-fcm", "os": "android"], bearer: token)
                #expect(registered.status == 200, "\(registered.json)")
                let smartID = await stack.call("POST", "/smartid/devices", ["profileID": "token-profile", "OS": "Android", "deviceID": "token-sid-fcm"], bearer: token)
                #expect(smartID.status == 200, "\(smartID.json)")
                try await stack.postEvent(["id": "ct-1", "source": "api", "kind": "chat.message", "audience": ["users": ["token-user"]], "data": ["text": "hello"]])
                try await stack.expectOK("POST", "/smartid/push", ["messageId": "ct-sid-1", "pushId": "token-profile", "requestor": "Bank", "type": "AUTH"])
                try await eventually(timeout: .seconds(30), "the pushes to the token's devices") {
                    !stack.received("token-phone-fcm").isEmpty && !stack.received("token-sid-fcm").isEmpty
                }
                #expect((stack.received("token-sid-fcm")[0]["data"] as? [String: String])?["messageId"] == "ct-sid-1")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
