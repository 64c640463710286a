import Foundation
import HeraldCrypto

/// A JWS in compact serialization (`header.claims.signature`, RFC 7515), read but not yet
/// verified: what the emulated token endpoints, APNs and Web Push's VAPID check.
public struct CompactJWT: @unchecked Sendable {
    public var header: [String: Any]
    public var claims: [String: Any]
    public var signature: Data
    /// The bytes the signature covers: `header.claims` as sent.
    public var signingInput: Data

    /// Nil when `text` is not three base64url parts of which the first two are JSON objects.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(String(parts[0])), let claimsData = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return nil }
        self.header = header
        self.claims = claims
        self.signature = signature
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    }
}
