import Foundation
import HeraldModel
@testable import Registration
import Testing

/// The fan-out encoder writes exactly what the contract encoder writes.
struct DeliveryFanOutEncoderTests {
    static let texts = ["plain", "with space", "ünïcödé ✓ 🎉", "quote \" inside", "back\\slash", "new\nline", "tab\there", "/slash/", "\u{1}ctl", ""]

    static func event(alert: Bool, addressKey: Bool) -> (NotificationEvent, AddressKey?) {
        let event = NotificationEvent(
            id: "ev-\"1\"", app: "app/1", source: .upstra, kind: "message.created", occurredAt: Date(timeIntervalSince1970: 1_800_000_000.123),
            audience: .users(["u1"]), context: ["channelId": "c/1", "text": "deviceId \"device\":{}"], data: ["deliveryId": "fake", "x": "ü"],
            alert: alert ? .template(name: "message.created", args: ["user": "Ann"]) : nil,
            options: DeliveryOptions(ttlSeconds: 60, priority: .high, collapseKey: "k", critical: true, encryption: .preferred, hideData: false))
        return (event, addressKey ? AddressKey(emailAddressId: "a1", keyId: "k1", publicKey: "MIIB+/=") : nil)
    }

    @Test(arguments: [(false, false), (true, false), (true, true)])
    func everyDeviceIsEncodedExactlyAsTheContractEncoderWouldEncodeIt(alert: Bool, withKey: Bool) throws {
        let (event, addressKey) = Self.event(alert: alert, addressKey: withKey)
        let encoder = try DeliveryFanOutEncoder(event: event, addressKey: addressKey)
        var devices: [DeviceTarget] = []
        for (n, text) in Self.texts.enumerated() {
            devices.append(DeviceTarget(id: "d\(n)-\(text)", platform: .hms, token: "t-\(text)", os: .ios))
            devices.append(DeviceTarget(id: "e\(n)", platform: .fcm, token: "tok\(n)", os: .android, userId: text, locale: text,
                                        key: DeviceKey(keyId: text, p256dh: "BCV-_x", auth: "BTB_\(n)")))
        }
        for device in devices {
            let (deliveryId, body) = try encoder.encode(device)
            let expected = Delivery(event: event, device: device, addressKey: addressKey)
            #expect(deliveryId == expected.deliveryId)
            #expect(String(decoding: body, as: UTF8.self) == String(decoding: try HeraldJSON.encode(expected), as: UTF8.self), "\(device.id)")
        }
    }
}
