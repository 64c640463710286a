/// Why a key could not be used or a message could not be encrypted or decrypted. The
/// `message` is meant for the person who registered the key or sent the message.
public struct HeraldCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        /// Not base64/base64url, not PEM, or not DER.
        case invalidEncoding
        /// The right kind of value with the wrong number of bytes.
        case wrongLength
        /// An elliptic-curve key on another curve than P-256.
        case wrongCurve
        /// Bytes of the right length that are not a point on the curve.
        case invalidPoint
        /// A private key, a certificate or something else where a public key belongs.
        case notAPublicKey
        /// A public key of an algorithm this use does not take (e.g. EC where RSA is needed).
        case unsupportedKey
        /// An RSA key outside 2048–4096 bits.
        case unsupportedKeySize
        /// A message whose structure is wrong (header, record, JWE parts).
        case malformedMessage
        /// A plaintext that does not fit (e.g. in one RFC 8291 record).
        case messageTooLarge
        /// Authentication failed: tampered data, a wrong key or a wrong auth secret.
        case decryptionFailed
    }

    public var reason: Reason
    /// The field the problem is in (`p256dh`, `auth`, `publicKey`), when there is one.
    public var field: String?
    public var message: String

    public init(_ reason: Reason, field: String? = nil, _ message: String) {
        self.reason = reason
        self.field = field
        self.message = message
    }

    public var description: String {
        field.map { "\($0): \(message)" } ?? message
    }
}
