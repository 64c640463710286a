/// How long the texts of Herald's APIs may be. Lengths count Unicode code points, as JSON
/// Schema's `maxLength` counts them, so the gateway's OpenAPI document and the services
/// that check the same fields agree.
public enum TextLimits {
    /// Device, user, channel, profile, address and sponsee ids, key ids.
    public static let identifier = 256
    /// Provider tokens and other long strings.
    public static let long = 4096
    /// An integration's own event id (or an `Idempotency-Key`): visible ASCII but `%`,
    /// because the event id travels as an AMQP `message_id` (at most 255 bytes with its
    /// source prefix) and is read back from a URL path, where `%` starts an escape.
    public static let eventId = 200

    /// Whether `text` is 1 to `maximum` characters.
    public static func fits(_ text: String, maximum: Int) -> Bool {
        !text.isEmpty && text.unicodeScalars.count <= maximum
    }

    /// What `isEventId` asks, for error messages.
    public static let eventIdRule = "must be 1 to \(eventId) visible ASCII characters other than %"

    /// Whether `text` is 1 to 200 visible ASCII characters other than `%`.
    public static func isEventId(_ text: String) -> Bool {
        (1...eventId).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "%") }
    }
}
