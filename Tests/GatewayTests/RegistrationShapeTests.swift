import Crypto
import Foundation
import Gateway
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import Testing

/// A provider declares what its devices hand over (`ProviderDescriptor.registrationShape`),
/// and `PUT …/devices/{id}` reads that: a token, or a browser's push subscription as
/// `PushSubscription.toJSON()` gives it (its endpoint the token, its keys the device's key).
@Suite("What a device hands over, by its provider", .needs(.broker))
struct RegistrationShapeTests {
    /// A provider whose devices are browsers, registering their push subscriptions.
    struct BrowserProvider: ProviderDescriptor {
        let platform: Platform = "browser"
        let registersDevices = true
        let registrationShape = RegistrationShape.subscription
        let payloadShape = PayloadShape.encryptedMessage
        func validateSettings(of app: String, _ configuration: AppConfiguration) throws {}
    }

    static let registry = ProviderRegistry.herald.adding([BrowserProvider()])

    static func subscription() -> [String: Any] {
        let p256dh = Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        let auth = Base64URL.encode(Data((0..<16).map { _ in UInt8.random(in: 0...255) }))
        // As a browser's PushSubscription.toJSON() gives it.
        return ["endpoint": "https://push.example.net/send/\(UUID().uuidString)", "expirationTime": NSNull(), "keys": ["p256dh": p256dh, "auth": auth]]
    }

    @Test func aBrowserRegistersItsSubscriptionAsItIsWithoutNamingItsSystem() async throws {
        let gateway = try await GatewayFixture(providers: Self.registry)
        defer { Task { await gateway.stop() } }
        let subscription = Self.subscription()
        let put = await gateway.send("PUT", "/v1/apps/{app}/devices/tab-1", json: ["platform": "browser", "subscription": subscription, "userId": "u1"])
        #expect(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
        let got = await gateway.send("GET", "/v1/apps/{app}/devices/tab-1")
        let registration = try #require((got.json["device"] as? [String: Any])?["registration"] as? [String: Any], "\(got.json)")
        #expect(registration["platform"] as? String == "browser" && registration["os"] as? String == "web")
        let key = try #require(registration["key"] as? [String: Any])
        let keys = try #require(subscription["keys"] as? [String: String])
        #expect(key["p256dh"] as? String == keys["p256dh"] && key["auth"] as? String == keys["auth"])
        #expect(TokenMask.masked(subscription["endpoint"] as! String) == registration["token"] as? String)
        await gateway.stop()
    }

    @Test func aBrowserHandsOverNoTokenAndATokenDeviceNoSubscription() async throws {
        let gateway = try await GatewayFixture(providers: Self.registry)
        defer { Task { await gateway.stop() } }
        let withToken = await gateway.send("PUT", "/v1/apps/{app}/devices/tab-2", json: ["platform": "browser", "subscription": Self.subscription(), "token": "t"])
        #expect(withToken.status == 400 && withToken.json["field"] as? String == "token", "\(withToken.json)")
        let noKeys = await gateway.send("PUT", "/v1/apps/{app}/devices/tab-2", json: ["platform": "browser", "subscription": ["endpoint": "https://push.example.net/x"]])
        #expect(noKeys.status == 400 && noKeys.json["field"] as? String == "subscription.keys", "\(noKeys.json)")
        let phone = await gateway.send("PUT", "/v1/apps/{app}/devices/phone-2", json: ["platform": "fcm", "os": "android", "token": "tok", "subscription": Self.subscription()])
        #expect(phone.status == 400 && phone.json["field"] as? String == "subscription", "\(phone.json)")
        await gateway.stop()
    }

    @Test func aWebDeviceWithoutAPlatformHandsOverWhatTheProviderOfItsSystemTakes() async throws {
        // The app has Web Push, whose devices are the web's: a web device registered without a
        // platform is a browser's subscription, never a keyless token.
        let gateway = try await GatewayFixture(extraAppSettings: "webpush: { vapidPrivateKeyFile: vapid.pem, subject: \"mailto:ops@example.com\" }")
        defer { Task { await gateway.stop() } }
        let token = await gateway.send("PUT", "/v1/apps/{app}/devices/tab-3", json: ["os": "web", "token": "https://push.example.net/send/abc", "userId": "u1"])
        #expect(token.status == 400 && token.json["field"] as? String == "token", "\(token.status) \(token.json)")
        let subscribed = await gateway.send("PUT", "/v1/apps/{app}/devices/tab-3", json: ["os": "web", "subscription": Self.subscription(), "userId": "u1"])
        #expect(subscribed.status == 200, "\(subscribed.status) \(subscribed.json)")
        let got = await gateway.send("GET", "/v1/apps/{app}/devices/tab-3")
        let registration = (got.json["device"] as? [String: Any])?["registration"] as? [String: Any]
        #expect(registration?["platform"] as? String == "webpush" && registration?["key"] != nil, "\(got.json)")
        await gateway.stop()
    }
}
