import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldModel

/// Deliveries of each integration, with fixed keys and times, for golden and rule tests.
enum PayloadSamples {
    static let now = HeraldJSON.parseTimestamp("2026-11-21T10:00:00.000Z")!
    static let occurredAt = now.addingTimeInterval(-2)

    // The device key of RFC 8291's example, so encrypted fixtures stay readable and fixed.
    static let devicePrivateKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: Base64URL.decode("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")!)
    static let deviceAuth = Base64URL.decode("BTBZMqHH6r4Tts7J_aSIgg")!
    static let deviceKey = DeviceKey(
        keyId: "device-key-1", p256dh: Base64URL.encode(devicePrivateKey.publicKey.x963Representation),
        auth: Base64URL.encode(deviceAuth))

    /// A 2048-bit test key (never used outside tests).
    nonisolated(unsafe) static let addressPrivateKey: _RSA.Encryption.PrivateKey = {
        let url = Bundle.module.url(forResource: "address-test-key", withExtension: "pem", subdirectory: "Fixtures")!
        return try! _RSA.Encryption.PrivateKey(pemRepresentation: String(contentsOf: url, encoding: .utf8))
    }()
    static let addressKey = AddressKey(
        emailAddressId: "addr-1", keyId: "address-key-1",
        publicKey: addressPrivateKey.publicKey.derRepresentation.base64EncodedString())

    static func device(_ platform: Platform, os: DeviceOS, key: DeviceKey? = nil, locale: String? = "en-GB") -> DeviceTarget {
        let id = "device-\(platform.rawValue)-\(os.rawValue)"
        return DeviceTarget(
            id: id, platform: platform, token: "token-\(platform.rawValue)-\(os.rawValue)", os: os, userId: "user-1", locale: locale, key: key,
            recipient: platform == .webhook ? WebhookRecipient(userId: "user-1", deviceId: id, platform: .fcm, token: "token-fcm") : nil)
    }

    /// `delivery` with encryption required.
    static func encrypted(_ delivery: Delivery) -> Delivery {
        var copy = delivery
        copy.options.encryption = .required
        return copy
    }

    /// `delivery` sent in clear, without its address key.
    static func plain(_ delivery: Delivery) -> Delivery {
        var copy = delivery
        copy.options.encryption = EncryptionPolicy.none
        copy.addressKey = nil
        return copy
    }

    static func smartIDAuth(_ device: DeviceTarget) -> Delivery {
        Delivery(
            eventId: "9f1c7a4e-smartid", app: "smartid", source: .smartID, kind: "auth", occurredAt: occurredAt,
            context: ["requestor": "Example Bank"],
            data: ["messageId": "9f1c7a4e-smartid", "requestor": "Example Bank", "type": "AUTH"],
            options: DeliveryOptions(ttlSeconds: 120, critical: true), device: device)
    }

    static func evernymMessage(_ device: DeviceTarget) -> Delivery {
        Delivery(
            eventId: "msg-3f2a", app: "verity", source: .evernym, kind: "credOffer", occurredAt: occurredAt,
            data: ["msgId": "msg-3f2a", "msgType": "credOffer", "msgSenderName": "Faber College"],
            alert: .literal(title: "New message", body: "Faber College sent you a credential offer"),
            options: DeliveryOptions(priority: .high, encryption: EncryptionPolicy.none), device: device)
    }

    static func upstraMessage(_ device: DeviceTarget, type: String = "text") -> Delivery {
        Delivery(
            eventId: "chat-msg-77", app: "chat", source: .upstra, kind: "message.created", occurredAt: occurredAt,
            context: ["channelId": "ch-9", "messageType": type],
            data: ["channelId": "ch-9", "messageId": "m-77", "actorId": "u-2"],
            alert: .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Lunch at 12?"]),
            options: DeliveryOptions(collapseKey: "ch-9"), device: device)
    }

    static func sudoEmail(_ device: DeviceTarget) -> Delivery {
        Delivery(
            eventId: "email-5", app: "sudo", source: .sudoEmail, kind: "email.received", occurredAt: occurredAt,
            context: ["sudoId": "sudo-1", "emailAddressId": "addr-1"],
            data: ["emailAddressId": "addr-1", "sudoId": "sudo-1", "messageId": "em-5", "from": "alice@example.com",
                   "subject": "Quarterly report", "receivedAt": "2026-11-21T09:59:57.000Z"],
            options: DeliveryOptions(encryption: .required), device: device, addressKey: addressKey)
    }

    static func webcomChildren(_ device: DeviceTarget, added: String = #"{"k1":{"name":"a"}}"#) -> Delivery {
        Delivery(
            eventId: "wc-12", app: "webcom", source: .webcom, kind: "children.updated", occurredAt: occurredAt,
            data: ["path": "/rooms/r1/messages", "added": added, "changed": #"{"k0":{"name":"b"}}"#, "removed": #"{"k9":null}"#],
            options: DeliveryOptions(ttlSeconds: 3600, encryption: EncryptionPolicy.none), device: device)
    }

    static func webcomValue(_ device: DeviceTarget, value: String = #"{"temperature":21}"#, hideData: Bool = false) -> Delivery {
        Delivery(
            eventId: "wc-13", app: "webcom", source: .webcom, kind: "value.changed", occurredAt: occurredAt,
            data: ["path": "/sensors/s1", "value": value],
            options: DeliveryOptions(encryption: EncryptionPolicy.none, hideData: hideData), device: device)
    }
}
