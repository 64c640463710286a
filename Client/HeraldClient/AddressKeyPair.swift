import Foundation
import HeraldCrypto

/// An email address's own key for `jwe` pushes: an RSA key pair (2048 to 4096 bits) under the
/// key id the app registers it with. Generate it once per address, keep it (it is
/// `Codable`, for the keychain), and send `registration` to the address-key endpoint.
public struct AddressKeyPair: Sendable, Codable {
    /// The id the app registered the key under; pushes name it in `kid` and in the JWE header.
    public let keyId: String
    public let key: RSADecryptionKey

    /// A fresh RSA key of `bits` (2048 by default; 3072 or 4096 cost more to generate and to
    /// decrypt with).
    public static func generate(keyId: String, bits: Int = 2048) throws(HeraldClientError) -> AddressKeyPair {
        do {
            return AddressKeyPair(keyId: keyId, key: try RSADecryptionKey.generate(bits: bits))
        } catch {
            throw HeraldClientError(.invalidKey, field: "bits", (error as? HeraldCryptoError)?.message ?? "\(error)")
        }
    }

    public init(keyId: String, key: RSADecryptionKey) {
        self.keyId = keyId
        self.key = key
    }

    /// Reads a stored key from its PEM (`BEGIN PRIVATE KEY` or `BEGIN RSA PRIVATE KEY`).
    public init(keyId: String, privateKeyPEM: String) throws(HeraldClientError) {
        do {
            self.init(keyId: keyId, key: try RSADecryptionKey(pem: privateKeyPEM))
        } catch {
            throw HeraldClientError(.invalidKey, field: "privateKey", "the stored address key cannot be read: \((error as? HeraldCryptoError)?.message ?? "\(error)")")
        }
    }

    /// The body of `PUT /v1/apps/{app}/email/addresses/{id}/key`: the key id and the public
    /// key as SPKI PEM (`BEGIN PUBLIC KEY`).
    public var registration: Registration {
        Registration(keyId: keyId, publicKey: key.publicKeyPEM)
    }

    /// The address-key registration's body (`owner` is the caller's to add).
    public struct Registration: Sendable, Hashable, Codable {
        public var keyId: String
        public var publicKey: String
    }

    // Stored as {keyId, privateKey}, the key as PKCS #8 PEM.
    private enum CodingKeys: String, CodingKey { case keyId, privateKey }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(keyId: try container.decode(String.self, forKey: .keyId), privateKeyPEM: try container.decode(String.self, forKey: .privateKey))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyId, forKey: .keyId)
        try container.encode(key.pem, forKey: .privateKey)
    }
}
