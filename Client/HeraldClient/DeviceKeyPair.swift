import Foundation
import HeraldCrypto

/// A device's own key for `aes128gcm` pushes: a P-256 key pair and a 16-byte auth secret,
/// under the key id the app registers it with. Generate it once per installation, keep it
/// (it is `Codable`, for the keychain), and send `registration` as the device's `key`.
public struct DeviceKeyPair: Sendable, Codable {
    /// The id the app registered the key under; pushes name it in `kid`.
    public let keyId: String
    public let key: WebPushPrivateKey

    /// A fresh key pair and auth secret from the system's random number generator.
    public static func generate(keyId: String) -> DeviceKeyPair {
        DeviceKeyPair(keyId: keyId, key: .generate())
    }

    public init(keyId: String, key: WebPushPrivateKey) {
        self.keyId = keyId
        self.key = key
    }

    /// Reads a stored key: the 32-byte private scalar (or its DER) and the 16-byte auth secret.
    public init(keyId: String, privateKey: Data, authSecret: Data) throws(HeraldClientError) {
        do {
            self.init(keyId: keyId, key: try WebPushPrivateKey(privateKey: privateKey, authSecret: authSecret))
        } catch {
            throw HeraldClientError(.invalidKey, field: (error as? HeraldCryptoError)?.field, "the stored device key cannot be read: \((error as? HeraldCryptoError)?.message ?? "\(error)")")
        }
    }

    /// The device registration's `key` member, exactly as `PUT /v1/apps/{app}/devices/{id}`
    /// takes it: `p256dh` the 65-byte uncompressed public point and `auth` the secret, both
    /// base64url without padding.
    public var registration: Registration {
        Registration(keyId: keyId, p256dh: Base64URL.encode(key.publicKey.publicKeyBytes), auth: Base64URL.encode(key.authSecret))
    }

    /// The `key` object of a device registration.
    public struct Registration: Sendable, Hashable, Codable {
        public var keyId: String
        public var p256dh: String
        public var auth: String
    }

    // Stored as {keyId, privateKey, auth}, the binary values base64url.
    private enum CodingKeys: String, CodingKey { case keyId, privateKey, auth }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let keyId = try container.decode(String.self, forKey: .keyId)
        guard let scalar = Base64URL.decode(try container.decode(String.self, forKey: .privateKey)),
              let auth = Base64URL.decode(try container.decode(String.self, forKey: .auth)) else {
            throw HeraldClientError(.invalidKey, "the stored device key is not base64url")
        }
        try self.init(keyId: keyId, privateKey: scalar, authSecret: auth)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyId, forKey: .keyId)
        try container.encode(Base64URL.encode(key.rawPrivateKey), forKey: .privateKey)
        try container.encode(Base64URL.encode(key.authSecret), forKey: .auth)
    }
}
