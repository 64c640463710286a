import Foundation

/// A JWS in compact serialization (`header.claims.signature`, RFC 7515), read but not yet
/// verified: what the emulated token endpoint and APNs both check.
struct CompactJWT {
    var header: [String: Any]
    var claims: [String: Any]
    var signature: Data
    /// The bytes the signature covers: `header.claims` as sent.
    var signingInput: Data

    /// Nil when `text` is not three base64url parts of which the first two are JSON objects.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return nil }
        self.header = header
        self.claims = claims
        self.signature = signature
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    }
}
