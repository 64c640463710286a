import Crypto
import _CryptoExtras
import Foundation

/// The private RSA key an app keeps for an email address: it decrypts the JWE payloads Herald
/// encrypts to its public half (`RSAEncryptionKey`, registered as `publicKey`).
///
/// `@unchecked Sendable`: the wrapped BoringSSL key is immutable after creation and only read.
public struct RSADecryptionKey: @unchecked Sendable {
    public let key: _RSA.Encryption.PrivateKey

    /// A fresh key of `bits` (2048, 3072 or 4096; Herald takes 2048 to 4096).
    public static func generate(bits: Int = 2048) throws -> RSADecryptionKey {
        guard RSAEncryptionKey.allowedSizes.contains(bits), bits % 8 == 0 else {
            throw HeraldCryptoError(.unsupportedKeySize, field: "bits", "a \(bits)-bit RSA key; Herald takes 2048 to 4096 bits")
        }
        return RSADecryptionKey(checked: try _RSA.Encryption.PrivateKey(keySize: .init(bitCount: bits)))
    }

    /// Reads a stored key: PEM (`BEGIN PRIVATE KEY` or `BEGIN RSA PRIVATE KEY`) of 2048 to
    /// 4096 bits.
    public init(pem: String) throws {
        let key: _RSA.Encryption.PrivateKey
        do { key = try _RSA.Encryption.PrivateKey(pemRepresentation: pem) } catch {
            throw HeraldCryptoError(.invalidEncoding, field: "privateKey", "not the PEM of an RSA private key of at least 2048 bits")
        }
        try self.init(key)
    }

    public init(_ key: _RSA.Encryption.PrivateKey) throws {
        guard RSAEncryptionKey.allowedSizes.contains(key.keySizeInBits) else {
            throw HeraldCryptoError(.unsupportedKeySize, field: "privateKey", "a \(key.keySizeInBits)-bit RSA key; Herald takes 2048 to 4096 bits")
        }
        self.init(checked: key)
    }

    private init(checked key: _RSA.Encryption.PrivateKey) {
        self.key = key
    }

    public var bits: Int { key.keySizeInBits }

    /// PKCS #8 PEM (`BEGIN PRIVATE KEY`), to store.
    public var pem: String { key.pkcs8PEMRepresentation }

    /// The public half, as SPKI PEM (`BEGIN PUBLIC KEY`): what the address-key registration takes.
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// Decrypts a compact JWE encrypted to the public half.
    public func decrypt(_ compact: String) throws -> (header: JWE.Header, plaintext: Data) {
        try JWE.decrypt(compact, with: key)
    }
}
