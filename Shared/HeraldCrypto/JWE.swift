import Crypto
import _CryptoExtras
import Foundation

/// JWE compact serialization (RFC 7516) with `alg` `RSA-OAEP-256` and `enc` `A256GCM`: a
/// fresh 256-bit content key, wrapped with the recipient's RSA key, encrypts the plaintext;
/// the protected header is the AES-GCM additional data.
public enum JWE {
    /// Herald's `enc` value in the data map for JWE payloads.
    public static let scheme = "jwe"
    public static let algorithm = "RSA-OAEP-256"
    public static let encryption = "A256GCM"

    /// The protected header: `alg`, `enc`, and the key id when there is one.
    public struct Header: Codable, Sendable, Hashable {
        public var alg: String
        public var enc: String
        public var kid: String?
        public var cty: String?
        public init(alg: String = JWE.algorithm, enc: String = JWE.encryption, kid: String? = nil, cty: String? = nil) {
            self.alg = alg
            self.enc = enc
            self.kid = kid
            self.cty = cty
        }
    }

    /// Encrypts `plaintext` to `key`; the result is `header.key.iv.ciphertext.tag`.
    public static func encrypt(_ plaintext: some DataProtocol, to key: RSAEncryptionKey, keyId: String? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Base64URL.encode(try encoder.encode(Header(kid: keyId)))
        let contentKey = SymmetricKey(size: .bits256)
        let wrapped = try contentKey.withUnsafeBytes { try key.key.encrypt(Data($0), padding: .PKCS1_OAEP_SHA256) }
        let sealed = try AES.GCM.seal(plaintext, using: contentKey, nonce: AES.GCM.Nonce(), authenticating: Data(header.utf8))
        return [header, Base64URL.encode(wrapped), Base64URL.encode(sealed.nonce.withUnsafeBytes { Data($0) }), Base64URL.encode(sealed.ciphertext), Base64URL.encode(sealed.tag)]
            .joined(separator: ".")
    }

    /// The size of the compact form for a plaintext of `count` bytes, a key of `keyBits` and
    /// key id `keyId` (used to check provider limits before encrypting).
    public static func compactSize(plaintextCount count: Int, keyBits: Int, keyId: String?) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = (try? encoder.encode(Header(kid: keyId)))?.count ?? 0
        func encoded(_ n: Int) -> Int { (n * 4 + 2) / 3 }
        return encoded(header) + 1 + encoded(keyBits / 8) + 1 + encoded(12) + 1 + encoded(count) + 1 + encoded(16)
    }

    /// Decrypts a compact JWE with the recipient's private key (for clients and tests).
    public static func decrypt(_ compact: String, with privateKey: _RSA.Encryption.PrivateKey) throws -> (header: Header, plaintext: Data) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5 else {
            throw HeraldCryptoError(.malformedMessage, "a compact JWE has 5 parts, found \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else {
            throw HeraldCryptoError(.malformedMessage, "the protected header is not base64url JSON with alg and enc")
        }
        guard header.alg == algorithm, header.enc == encryption else {
            throw HeraldCryptoError(.malformedMessage, "alg \(header.alg) / enc \(header.enc); only \(algorithm) / \(encryption) is supported")
        }
        guard let wrapped = Base64URL.decode(parts[1]), let iv = Base64URL.decode(parts[2]),
              let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4]),
              iv.count == 12, tag.count == 16 else {
            throw HeraldCryptoError(.malformedMessage, "the key, iv (12 bytes), ciphertext or tag (16 bytes) part is invalid")
        }
        do {
            let contentKey = try privateKey.decrypt(wrapped, padding: .PKCS1_OAEP_SHA256)
            guard contentKey.count == 32 else { throw HeraldCryptoError(.decryptionFailed, "the content key is not 256 bits") }
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            let plaintext = try AES.GCM.open(box, using: SymmetricKey(data: contentKey), authenticating: Data(parts[0].utf8))
            return (header, plaintext)
        } catch {
            throw HeraldCryptoError(.decryptionFailed, "the JWE does not decrypt: tampered, or not for this key")
        }
    }
}
