/// Why a push could not be opened, a stored key not read, or a call to Herald failed
/// (`HeraldRegistrar`). Every failure of the kit is one
/// of these, never a crash: the `reason` is for code, the `message` for a log line (it never
/// contains key material or the payload's contents).
public struct HeraldClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        /// The data map is not Herald's (no `herald` key): the push came from another source.
        case notHerald
        /// A Herald format version this kit does not read (it reads `1`).
        case unsupportedVersion
        /// An `enc` other than `aes128gcm` and `jwe`.
        case unsupportedScheme
        /// No key of the keyring has the push's `kid` (for its scheme).
        case unknownKey
        /// The payload does not authenticate: tampered with, or encrypted to another key.
        case decryptionFailed
        /// The payload or the map is not in Herald's format (bad base64url, not JSON, a
        /// wrongly typed value, a JWE header that contradicts the map).
        case malformedPayload
        /// A field the format or the event's kind requires is absent.
        case missingField
        /// A stored key that cannot be read, or a key size Herald does not take.
        case invalidKey
        /// Herald refused the client token, and a fresh one from the token provider too (401).
        case unauthorized
        /// Herald refused the call (`status`; the message is its problem document's detail), or
        /// did not answer.
        case requestFailed
    }

    public var reason: Reason
    /// The data-map field the problem is in, when there is one (`payload`, `kid`, `messageId`).
    public var field: String?
    public var message: String
    /// For a call to Herald: the HTTP status it answered (nil when none came).
    public var status: Int?

    public init(_ reason: Reason, field: String? = nil, _ message: String, status: Int? = nil) {
        self.reason = reason
        self.field = field
        self.message = message
        self.status = status
    }

    public var description: String {
        field.map { "\(reason.rawValue) (\($0)): \(message)" } ?? "\(reason.rawValue): \(message)"
    }
}
