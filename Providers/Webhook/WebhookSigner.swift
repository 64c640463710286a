import Crypto
import Foundation

/// Signs forwards the Standard Webhooks way: `webhook-signature` is `v1,` and the base64
/// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes of a
/// `whsec_` secret. With two secrets (while rotating) the header carries both signatures,
/// separated by a space, so a receiver holding either one verifies it.
public struct WebhookSigner: Sendable {
    private let keys: [SymmetricKey]

    /// Reads secrets of the form `whsec_<base64>` (Standard Webhooks' own), the first the
    /// current one; at most two. A secret without the prefix, or not base64, or shorter
    /// than 24 bytes is refused with the reason.
    public init(secrets: [String]) throws(WebhookSecretError) {
        guard !secrets.isEmpty else { throw WebhookSecretError("no secret given") }
        guard secrets.count <= 2 else { throw WebhookSecretError("at most two secrets (the new and the old one while rotating), found \(secrets.count)") }
        var keys: [SymmetricKey] = []
        for (index, secret) in secrets.enumerated() {
            let which = secrets.count == 1 ? "the secret" : index == 0 ? "the first secret" : "the second secret"
            guard secret.hasPrefix(Self.prefix) else { throw WebhookSecretError("\(which) does not start with \(Self.prefix)") }
            guard let bytes = Data(base64Encoded: String(secret.dropFirst(Self.prefix.count))) else {
                throw WebhookSecretError("\(which) is not base64 after \(Self.prefix)")
            }
            guard (24...64).contains(bytes.count) else {
                throw WebhookSecretError("\(which) holds \(bytes.count) bytes; Standard Webhooks asks for 24 to 64")
            }
            keys.append(SymmetricKey(data: bytes))
        }
        self.keys = keys
    }

    public static let prefix = "whsec_"

    /// A new random secret in the `whsec_` form (32 bytes).
    public static func generateSecret() -> String {
        prefix + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The `webhook-signature` value for a message.
    public func signature(id: String, timestamp: Int, body: Data) -> String {
        var signed = Data(capacity: id.utf8.count + body.count + 24)
        signed.append(contentsOf: id.utf8)
        signed.append(UInt8(ascii: "."))
        signed.append(contentsOf: String(timestamp).utf8)
        signed.append(UInt8(ascii: "."))
        signed.append(body)
        return keys.map { key in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
        }.joined(separator: " ")
    }
}

/// Why a signing secret cannot be used.
public struct WebhookSecretError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
