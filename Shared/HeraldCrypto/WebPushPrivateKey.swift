import Crypto
import Foundation

/// The device's side of a Web Push key: the P-256 private key and the 16-byte auth secret
/// that decrypt what Herald encrypted to their public half (`WebPushKey`, registered as
/// `p256dh` and `auth`). Apps generate it once, keep it in their keychain, and register
/// `publicKey`.
public struct WebPushPrivateKey: Sendable {
    public let privateKey: P256.KeyAgreement.PrivateKey
    public let authSecret: Data

    /// A fresh key pair and auth secret from the system's random number generator.
    public static func generate() -> WebPushPrivateKey {
        let secret = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return WebPushPrivateKey(checked: P256.KeyAgreement.PrivateKey(), authSecret: secret)
    }

    public init(privateKey: P256.KeyAgreement.PrivateKey, authSecret: Data) throws {
        guard authSecret.count == 16 else {
            throw HeraldCryptoError(.wrongLength, field: "auth", "the auth secret must be 16 bytes, got \(authSecret.count)")
        }
        self.init(checked: privateKey, authSecret: authSecret)
    }

    /// Reads a stored key: the private scalar as its 32 raw bytes (or PKCS #8 / SEC 1 DER)
    /// and the auth secret's 16 bytes.
    public init(privateKey bytes: Data, authSecret: Data) throws {
        let key: P256.KeyAgreement.PrivateKey
        if bytes.count == 32, let raw = try? P256.KeyAgreement.PrivateKey(rawRepresentation: bytes) {
            key = raw
        } else if let der = try? P256.KeyAgreement.PrivateKey(derRepresentation: bytes) {
            key = der
        } else {
            throw HeraldCryptoError(.invalidEncoding, field: "privateKey", "\(bytes.count) bytes that are not a P-256 private key (32 raw bytes or DER)")
        }
        try self.init(privateKey: key, authSecret: authSecret)
    }

    private init(checked privateKey: P256.KeyAgreement.PrivateKey, authSecret: Data) {
        self.privateKey = privateKey
        self.authSecret = authSecret
    }

    /// The 32-byte private scalar, to store.
    public var rawPrivateKey: Data { privateKey.rawRepresentation }

    /// The public half Herald encrypts to.
    public var publicKey: WebPushKey {
        // The auth secret was checked when this value was made.
        try! WebPushKey(publicKey: privateKey.publicKey, authSecret: authSecret)
    }

    /// Decrypts an `aes128gcm` body encrypted to `publicKey`.
    public func decrypt(_ body: some DataProtocol) throws -> Data {
        try WebPushEncryption.decrypt(body, privateKey: privateKey, authSecret: authSecret)
    }
}
