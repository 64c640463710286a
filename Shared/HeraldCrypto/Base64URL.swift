import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of Web Push keys, JWE parts and
/// Herald's encrypted payloads. Decoding also accepts padding and the standard alphabet, so
/// keys pasted in either form work.
public enum Base64URL {
    public static func encode<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of `text`, or nil when it is not base64 or base64url.
    public static func decode(_ text: String) -> Data? {
        var standard = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
