import Foundation
import HeraldCrypto

/// Opens Herald pushes with the app's keys: recognises the data map, decrypts an encrypted
/// one with the key its `kid` names, and decodes the event. Cheap to make and `Sendable`, so
/// a notification service extension can make one per push.
public struct HeraldNotificationDecoder: Sendable {
    public var keyring: HeraldKeyring

    public init(keyring: HeraldKeyring = HeraldKeyring()) {
        self.keyring = keyring
    }

    /// Opens the data map of a push. A push from another source fails with `notHerald`; a
    /// payload for a key the keyring lacks with `unknownKey`; a tampered payload or one for
    /// another key with `decryptionFailed`.
    public func decode(_ data: [String: String]) throws(HeraldClientError) -> HeraldNotification {
        guard let version = data["herald"] else {
            throw HeraldClientError(.notHerald, field: "herald", "the data map has no herald key: the push is not Herald's")
        }
        guard version == HeraldData.version else {
            throw HeraldClientError(.unsupportedVersion, field: "herald", "format version \(version); this kit reads version \(HeraldData.version)")
        }
        guard let scheme = data["enc"] else {
            return try Self.decodePlain(data, alert: nil, encryption: .none)
        }
        let keyId = try Self.required("kid", in: data)
        let payload = try Self.required("payload", in: data)
        let plaintext: Data
        let encryption: HeraldNotification.Encryption
        switch scheme {
        case WebPushEncryption.scheme:
            guard let key = keyring.deviceKey(id: keyId) else {
                throw HeraldClientError(.unknownKey, field: "kid", "no device key with id \(keyId) in the keyring")
            }
            guard let body = Base64URL.decode(payload) else {
                throw HeraldClientError(.malformedPayload, field: "payload", "not base64url")
            }
            plaintext = try Self.opening { try key.key.decrypt(body) }
            encryption = .aes128gcm(keyId: keyId)
        case JWE.scheme:
            guard let key = keyring.addressKey(id: keyId) else {
                throw HeraldClientError(.unknownKey, field: "kid", "no address key with id \(keyId) in the keyring")
            }
            let opened = try Self.opening { try key.key.decrypt(payload) }
            if let headerKeyId = opened.header.kid, headerKeyId != keyId {
                throw HeraldClientError(.malformedPayload, field: "kid", "the JWE header names key \(headerKeyId), the data map \(keyId)")
            }
            plaintext = opened.plaintext
            encryption = .jwe(keyId: keyId)
        default:
            throw HeraldClientError(.unsupportedScheme, field: "enc", "scheme \(scheme); this kit reads \(WebPushEncryption.scheme) and \(JWE.scheme)")
        }
        let (inner, alert) = try Self.readPlaintext(plaintext)
        guard inner["herald"] == HeraldData.version else {
            throw HeraldClientError(.unsupportedVersion, field: "herald", "the decrypted map's format version is \(inner["herald"] ?? "absent"); this kit reads version \(HeraldData.version)")
        }
        return try Self.decodePlain(inner, alert: alert, encryption: encryption)
    }

    /// Opens an iOS notification's `userInfo` (FCM puts the data map at its top level). A
    /// plain push's alert is read from `aps` (an encrypted one's travels inside the payload).
    public func decode(userInfo: [AnyHashable: Any]) throws(HeraldClientError) -> HeraldNotification {
        var notification = try decode(HeraldData.map(userInfo: userInfo))
        if notification.alert == nil { notification.alert = HeraldAlert(aps: userInfo["aps"]) }
        return notification
    }

    /// Runs a decryption, turning HeraldCrypto's errors into the kit's.
    private static func opening<T>(_ body: () throws -> T) throws(HeraldClientError) -> T {
        do {
            return try body()
        } catch let error as HeraldCryptoError where error.reason == .decryptionFailed {
            throw HeraldClientError(.decryptionFailed, field: "payload", "the payload does not decrypt with the key its kid names: tampered with, or encrypted to another key")
        } catch let error as HeraldCryptoError {
            throw HeraldClientError(.malformedPayload, field: "payload", error.message)
        } catch {
            throw HeraldClientError(.malformedPayload, field: "payload", "\(error)")
        }
    }

    /// The decrypted JSON: an object of strings, and `alert` an object of strings.
    private static func readPlaintext(_ plaintext: Data) throws(HeraldClientError) -> ([String: String], HeraldAlert?) {
        guard let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any] else {
            throw HeraldClientError(.malformedPayload, field: "payload", "the decrypted payload is not a JSON object")
        }
        var map: [String: String] = [:]
        var alert: HeraldAlert?
        for (key, value) in object {
            if key == "alert" {
                guard let fields = value as? [String: Any], fields.values.allSatisfy({ $0 is String }) else {
                    throw HeraldClientError(.malformedPayload, field: "alert", "the alert is not an object of title and body strings")
                }
                alert = HeraldAlert(title: fields["title"] as? String, body: fields["body"] as? String)
            } else if let text = value as? String {
                map[key] = text
            } else {
                throw HeraldClientError(.malformedPayload, field: key, "a value of the decrypted map is not a string")
            }
        }
        return (map, alert)
    }

    private static func decodePlain(_ map: [String: String], alert: HeraldAlert?, encryption: HeraldNotification.Encryption) throws(HeraldClientError) -> HeraldNotification {
        let eventId = try required("event", in: map)
        let kind = try required("kind", in: map)
        let variant: HeraldNotification.Variant
        if let name = map["variant"] {
            guard let known = HeraldNotification.Variant(rawValue: name), known != .full else {
                throw HeraldClientError(.malformedPayload, field: "variant", "variant \(name); this kit reads onlyKeys, tooBig and hidden")
            }
            variant = known
        } else {
            variant = .full
        }
        let data = map.filter { !HeraldData.reservedKeys.contains($0.key) }
        let event = try HeraldEventDecoding.event(kind: kind, variant: variant, data: data)
        return HeraldNotification(eventId: eventId, kind: kind, variant: variant, encryption: encryption, alert: alert, event: event, data: data)
    }

    static func required(_ key: String, in map: [String: String]) throws(HeraldClientError) -> String {
        guard let value = map[key], !value.isEmpty else {
            throw HeraldClientError(.missingField, field: key, "the data map has no \(key)")
        }
        return value
    }
}
