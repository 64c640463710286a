import Foundation

/// A signed JWT in compact serialization (RFC 7515 §7.1): the header and claims as JSON in
/// base64url, and the signature over them. Both of Herald's grants make theirs here: FCM's
/// RS256 assertion and APNs' ES256 provider token.
public enum JWS {
    /// `header.claims.signature`, the JSON with sorted keys and unescaped slashes; `sign`
    /// signs the ASCII of `header.claims` and returns the signature's raw bytes.
    public static func compact(header: some Encodable, claims: some Encodable, sign: (Data) throws -> Data) throws -> String {
        let input = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        return input + "." + Base64URL.encode(try sign(Data(input.utf8)))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
