import Crypto
import Foundation
import HeraldModel

/// How a source's adapter names its events and reads ids. An event id is `<source>:<id>`: the
/// integration's own id (Smart ID's `messageId`, ...) namespaced by the source, so two
/// integrations' ids never collide. A source that sends no id (Upstra, Webcom) gets a fresh
/// one, unless the caller sends an `Idempotency-Key` header, which is then the id: a retried
/// request is the same event, and two identical messages are two events.
public enum SourceEventIds {
    /// An integration's own id of its event (`key` of `body`): 1 to 200 visible ASCII characters.
    public static func sourceId(_ body: JSONFields, _ key: String) throws(GatewayError) -> String {
        let id = try body.string(key, maxLength: TextLimits.eventId)
        guard TextLimits.isEventId(id) else { throw .invalid(body.name(key), TextLimits.eventIdRule) }
        return id
    }

    /// A profile or push id (`key` of `body`) without the white space around it: 1 to 256
    /// characters once trimmed.
    public static func trimmedId(_ body: JSONFields, _ key: String) throws(GatewayError) -> String {
        try trimmedId(try body.string(key, maxLength: TextLimits.long), field: body.name(key))
    }

    /// `id` without the white space around it, 1 to 256 characters once trimmed (`field` names
    /// it in the error).
    public static func trimmedId(_ id: String, field: String) throws(GatewayError) -> String {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        guard TextLimits.fits(trimmed, maximum: TextLimits.identifier) else {
            throw .invalid(field, "must be 1 to \(TextLimits.identifier) characters besides surrounding white space")
        }
        return trimmed
    }

    /// Ids without the white space around them (`trimmedId` each, `field[index]` in the error).
    public static func trimmedIds(_ ids: [String], field: String) throws(GatewayError) -> [String] {
        var result: [String] = []
        for (index, id) in ids.enumerated() { result.append(try trimmedId(id, field: "\(field)[\(index)]")) }
        return result
    }

    /// The event id for `id` from `source`.
    public static func eventId(_ source: EventSource, _ id: String) -> String {
        "\(source.rawValue):\(id)"
    }

    /// The id of an event whose body carries none: the `Idempotency-Key` (1 to 200 visible
    /// ASCII characters) when given, else a fresh one.
    public static func eventId(_ source: EventSource, idempotencyKey: String?) throws(GatewayError) -> String {
        guard let key = idempotencyKey else { return eventId(source, UUID().uuidString.lowercased()) }
        guard TextLimits.isEventId(key) else {
            throw .invalid("Idempotency-Key", TextLimits.eventIdRule)
        }
        return eventId(source, key)
    }

    /// The first 8 bytes of SHA-256 over `text`, in hex: a part of an event id made of a value
    /// that may be long or hold characters an event id may not.
    public static func shortDigest(_ text: String) -> String {
        Hex.encode(SHA256.hash(data: Data(text.utf8)).prefix(8))
    }
}
