import Crypto
import _CryptoExtras
import Foundation

/// The RSA public key registered with an email address, for JWE `RSA-OAEP-256`: 2048 to
/// 4096 bits, given as SPKI PEM (`BEGIN PUBLIC KEY`), PKCS #1 PEM (`BEGIN RSA PUBLIC KEY`)
/// or base64 DER of either.
///
/// `@unchecked Sendable`: the wrapped BoringSSL key is immutable after parsing and only read.
public struct RSAEncryptionKey: @unchecked Sendable {
    public static let allowedSizes = 2048...4096

    public let key: _RSA.Encryption.PublicKey

    public var bits: Int { key.keySizeInBits }
    /// The DER SubjectPublicKeyInfo, the form Herald stores and passes around (base64).
    public var spkiDER: Data { key.derRepresentation }

    /// Parses PEM or base64 DER text, with a precise error for the usual mistakes: a private
    /// key, a certificate, an EC key, a key outside 2048–4096 bits.
    public init(_ text: String, field: String = "publicKey") throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let der: Data
        if trimmed.hasPrefix("-----BEGIN ") {
            der = try Self.pemBody(trimmed, field: field)
        } else if let decoded = Base64URL.decode(trimmed), !decoded.isEmpty {
            der = decoded
        } else {
            throw HeraldCryptoError(.invalidEncoding, field: field, "neither PEM nor base64 DER")
        }
        try self.init(der: der, field: field)
    }

    /// Parses DER (SPKI or PKCS #1).
    public init(der: Data, field: String = "publicKey") throws {
        let key: _RSA.Encryption.PublicKey
        do {
            key = try _RSA.Encryption.PublicKey(unsafeDERRepresentation: der)
        } catch {
            throw Self.diagnose(der, field: field)
        }
        guard Self.allowedSizes.contains(key.keySizeInBits) else {
            throw HeraldCryptoError(.unsupportedKeySize, field: field, "a \(key.keySizeInBits)-bit RSA key; 2048 to 4096 bits are accepted")
        }
        self.key = key
    }

    private static func pemBody(_ pem: String, field: String) throws -> Data {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first, first.hasSuffix("-----") else {
            throw HeraldCryptoError(.invalidEncoding, field: field, "malformed PEM header")
        }
        let label = first.dropFirst("-----BEGIN ".count).dropLast(5)
        switch label {
        case "PUBLIC KEY", "RSA PUBLIC KEY":
            break
        case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
            throw HeraldCryptoError(.notAPublicKey, field: field, "this is a private key (\(label)); register the public key only")
        case "CERTIFICATE":
            throw HeraldCryptoError(.notAPublicKey, field: field, "this is a certificate; register its public key (BEGIN PUBLIC KEY)")
        default:
            throw HeraldCryptoError(.notAPublicKey, field: field, "PEM of type \(label); expected PUBLIC KEY or RSA PUBLIC KEY")
        }
        guard lines.last == "-----END \(label)-----" else {
            throw HeraldCryptoError(.invalidEncoding, field: field, "PEM without its END \(label) line")
        }
        let body = lines.dropFirst().dropLast().filter { !$0.contains(":") }.joined()
        guard let der = Data(base64Encoded: body), !der.isEmpty else {
            throw HeraldCryptoError(.invalidEncoding, field: field, "the PEM body is not base64")
        }
        return der
    }

    /// Why DER bytes are not an acceptable RSA public key.
    private static func diagnose(_ der: Data, field: String) -> HeraldCryptoError {
        if (try? P256.Signing.PublicKey(derRepresentation: der)) != nil
            || (try? P384.Signing.PublicKey(derRepresentation: der)) != nil
            || (try? P521.Signing.PublicKey(derRepresentation: der)) != nil {
            return HeraldCryptoError(.unsupportedKey, field: field, "an elliptic-curve key; an RSA key of 2048 to 4096 bits is needed")
        }
        if (try? _RSA.Encryption.PrivateKey(unsafeDERRepresentation: der)) != nil {
            return HeraldCryptoError(.notAPublicKey, field: field, "this is a private key; register the public key only")
        }
        if der.count < 160 {
            return HeraldCryptoError(.unsupportedKeySize, field: field, "too short for an RSA key of 2048 to 4096 bits (\(der.count) bytes of DER)")
        }
        return HeraldCryptoError(.invalidEncoding, field: field, "not a DER SubjectPublicKeyInfo or PKCS #1 RSA public key")
    }
}
