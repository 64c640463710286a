import Crypto
import Foundation

/// A device's Web Push key pair as the app registers it: its P-256 public key (`p256dh`)
/// and 16-byte authentication secret (`auth`), both base64url. RFC 8291 encrypts to it.
public struct WebPushKey: Sendable {
    public let publicKey: P256.KeyAgreement.PublicKey
    public let authSecret: Data

    /// The uncompressed point (65 bytes, `0x04 || X || Y`), as RFC 8291 puts it in `key_info`.
    public var publicKeyBytes: Data { publicKey.x963Representation }

    public init(publicKey: P256.KeyAgreement.PublicKey, authSecret: Data) throws {
        guard authSecret.count == 16 else {
            throw HeraldCryptoError(.wrongLength, field: "auth", "the auth secret must be 16 bytes, got \(authSecret.count)")
        }
        self.publicKey = publicKey
        self.authSecret = authSecret
    }

    /// Parses the registered strings. `p256dh` may be the 65-byte uncompressed point (the
    /// Web Push form), a 33-byte compressed point, or a DER SubjectPublicKeyInfo.
    public init(p256dh: String, auth: String) throws {
        guard let secret = Base64URL.decode(auth) else {
            throw HeraldCryptoError(.invalidEncoding, field: "auth", "not base64url")
        }
        try self.init(publicKey: try Self.parsePublicKey(p256dh), authSecret: secret)
    }

    /// Parses a P-256 public key, telling apart the usual mistakes: another curve, a private
    /// key, a point that is not on the curve.
    public static func parsePublicKey(_ text: String, field: String = "p256dh") throws -> P256.KeyAgreement.PublicKey {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw HeraldCryptoError(.invalidEncoding, field: field, "not base64url")
        }
        func invalidPoint() -> HeraldCryptoError {
            HeraldCryptoError(.invalidPoint, field: field, "\(bytes.count) bytes that are not a point on P-256")
        }
        switch (bytes.count, bytes.first) {
        case (65, 0x04):
            do { return try P256.KeyAgreement.PublicKey(x963Representation: bytes) } catch { throw invalidPoint() }
        case (33, 0x02), (33, 0x03):
            do { return try P256.KeyAgreement.PublicKey(compressedRepresentation: bytes) } catch { throw invalidPoint() }
        case (97, 0x04), (49, 0x02), (49, 0x03):
            throw HeraldCryptoError(.wrongCurve, field: field, "a P-384 point; the key must be on P-256 (prime256v1)")
        case (133, 0x04), (67, 0x02), (67, 0x03):
            throw HeraldCryptoError(.wrongCurve, field: field, "a P-521 point; the key must be on P-256 (prime256v1)")
        case (32, _):
            throw HeraldCryptoError(.wrongLength, field: field, "32 bytes: a private key or an X25519 key, not a P-256 public point (65 bytes, starting 0x04)")
        default:
            break
        }
        if let key = try? P256.KeyAgreement.PublicKey(derRepresentation: bytes) { return key }
        if (try? P384.KeyAgreement.PublicKey(derRepresentation: bytes)) != nil {
            throw HeraldCryptoError(.wrongCurve, field: field, "a P-384 key; the key must be on P-256 (prime256v1)")
        }
        if (try? P521.KeyAgreement.PublicKey(derRepresentation: bytes)) != nil {
            throw HeraldCryptoError(.wrongCurve, field: field, "a P-521 key; the key must be on P-256 (prime256v1)")
        }
        if (try? P256.KeyAgreement.PrivateKey(derRepresentation: bytes)) != nil
            || (try? P256.KeyAgreement.PrivateKey(x963Representation: bytes)) != nil {
            throw HeraldCryptoError(.notAPublicKey, field: field, "this is a private key; register the public key only")
        }
        throw HeraldCryptoError(.wrongLength, field: field, "\(bytes.count) bytes; a P-256 public key is the 65-byte uncompressed point (starting 0x04)")
    }
}
