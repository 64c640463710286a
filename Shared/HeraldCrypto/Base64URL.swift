import ExtrasBase64
import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of Web Push keys, JWE parts and
/// Herald's encrypted payloads. Decoding also accepts padding and the standard alphabet, so
/// keys pasted in either form work. (On swift-extras-base64: Foundation's string
/// replacements cost more than the encryption's AES on this path.)
public enum Base64URL {
    public static func encode<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        if let contiguous = bytes.withContiguousStorageIfAvailable({ Base64.encodeToString(bytes: $0, options: [.base64UrlAlphabet, .omitPaddingCharacter]) }) {
            return contiguous
        }
        return Base64.encodeToString(bytes: Array(bytes), options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The bytes of `text`, or nil when it is not base64 or base64url.
    public static func decode(_ text: String) -> Data? {
        var utf8 = Substring(text).utf8[...]
        while let first = utf8.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 { utf8 = utf8.dropFirst() }
        while let last = utf8.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 || last == UInt8(ascii: "=") { utf8 = utf8.dropLast() }
        guard utf8.count % 4 != 1 else { return nil }
        let standard = utf8.contains(UInt8(ascii: "+")) || utf8.contains(UInt8(ascii: "/"))
        let options: Base64.DecodingOptions = standard ? [.omitPaddingCharacter] : [.base64UrlAlphabet, .omitPaddingCharacter]
        guard let bytes = try? Base64.decode(bytes: Array(utf8), options: options) else { return nil }
        return Data(bytes)
    }
}
