import Foundation
import HeraldClient
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import FCM
import HMS
import Testing

/// The kit opens what the encryption service builds: every integration's event, in every
/// variant it degrades to, in clear and encrypted (to the device key, and for email to the
/// address key), as FCM and Push Kit carry it to the app.
struct RealPayloadTests {
    /// One payload as the app receives it.
    struct Received {
        var data: [String: String]
        var message: [String: Any]
    }

    /// The encryption service's decision for `delivery`, sent as `platform` carries it.
    static func received(_ delivery: Delivery) throws -> Received {
        let decision = PayloadBuilder(providers: .herald, sources: .herald).build(delivery, now: ClientSamples.now)
        guard case .dispatch(let request, _, _) = decision else { throw KitTestError("not dispatched: \(decision)") }
        switch request.platform {
        case .hms:
            // Push Kit carries the map as one JSON string in message.data.
            let body = try JSONSerialization.jsonObject(with: HMSMessage(request, now: ClientSamples.now).requestBody()) as? [String: Any]
            let message = try #require(body?["message"] as? [String: Any])
            let json = try #require(message["data"] as? String)
            return Received(data: try #require(HeraldData.map(pushKitData: json)), message: message)
        default:
            let body = try JSONSerialization.jsonObject(with: FCMMessage(request, now: ClientSamples.now).requestBody()) as? [String: Any]
            let message = try #require(body?["message"] as? [String: Any])
            return Received(data: try #require(message["data"] as? [String: String]), message: message)
        }
    }

    static func delivery(_ sample: ClientCase, _ scheme: ClientScheme, platform: Platform, os: DeviceOS = .android) -> Delivery {
        var delivery = sample.delivery(
            ClientSamples.device(platform, os: os, encrypted: scheme == .aes128gcm), scheme == .jwe ? ClientSamples.registeredAddressKey : nil)
        if scheme == .plain { delivery.options.encryption = EncryptionPolicy.none }
        return delivery
    }

    static let arguments: [(ClientCase, ClientScheme, Platform)] = ClientSamples.cases.flatMap { sample in
        sample.schemes.flatMap { scheme in [Platform.fcm, .hms].map { (sample, scheme, $0) } }
    }

    @Test(arguments: arguments)
    func theKitDecodesWhatTheEncryptionServiceSent(_ sample: ClientCase, _ scheme: ClientScheme, _ platform: Platform) throws {
        let delivery = Self.delivery(sample, scheme, platform: platform)
        let received = try Self.received(delivery)
        #expect(isHeraldNotification(received.data))
        let opened = try HeraldNotificationDecoder(keyring: ClientSamples.keyring).decode(received.data)
        #expect(opened.eventId == delivery.eventId)
        #expect(opened.kind == delivery.kind)
        #expect(opened.variant == sample.variant)
        #expect(opened.event == sample.event)
        switch scheme {
        case .plain:
            #expect(opened.encryption == .none)
            #expect(opened.alert == nil, "a plain push's alert is the provider's notification")
            let notification = received.message["notification"] as? [String: String]
            #expect(notification?["title"] == sample.alert?.title && notification?["body"] == sample.alert?.body)
        case .aes128gcm:
            #expect(opened.encryption == .aes128gcm(keyId: ClientSamples.deviceKey.keyId))
            #expect(opened.alert == sample.alert)
            #expect(Set(received.data.keys) == ["herald", "enc", "kid", "payload"], "nothing travels in clear")
        case .jwe:
            #expect(opened.encryption == .jwe(keyId: ClientSamples.addressKey.keyId))
            #expect(opened.alert == sample.alert)
            #expect(Set(received.data.keys) == ["herald", "enc", "kid", "payload"], "nothing travels in clear")
        }
    }

    /// The event's own data, without Herald's keys, is handed over as received.
    @Test func theEventsOwnDataIsHandedOverWithoutHeraldsKeys() throws {
        let sample = try #require(ClientSamples.cases.first { $0.name == "An app's own kind" })
        let received = try Self.received(Self.delivery(sample, .aes128gcm, platform: .fcm))
        let opened = try HeraldNotificationDecoder(keyring: ClientSamples.keyring).decode(received.data)
        #expect(opened.data == ["invoiceId": "inv-9", "amount": "12.50"])
        #expect(opened.source == "api")
    }

    /// On iOS, FCM puts the data map at the top of `userInfo`, beside `aps`, and an encrypted
    /// push has `mutable-content` so a notification service extension gets to open it.
    @Test func anIOSUserInfoIsOpenedInANotificationServiceExtension() throws {
        let sample = try #require(ClientSamples.cases.first { $0.name == "Upstra text message" })
        let received = try Self.received(Self.delivery(sample, .aes128gcm, platform: .fcm, os: .ios))
        let aps = ((received.message["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["mutable-content"] as? Int == 1)
        var userInfo: [AnyHashable: Any] = ["aps": aps ?? [:], "gcm.message_id": "0:1700000000%abc"]
        for (key, value) in received.data { userInfo[key] = value }
        #expect(isHeraldNotification(userInfo: userInfo))
        let opened = try HeraldNotificationDecoder(keyring: ClientSamples.keyring).decode(userInfo: userInfo)
        #expect(opened.alert == sample.alert)
        #expect(opened.event == sample.event)
    }
}

struct KitTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
