import Foundation

/// The JSON conventions every Herald contract follows on the wire: UTF-8, camelCase keys,
/// ISO-8601 UTC timestamps with milliseconds, sorted keys (so encodings are stable and
/// golden fixtures diff cleanly), unknown keys ignored on decode.
public enum HeraldJSON {
    /// Encoder for contracts. Dates are written as `2026-11-21T14:31:09.123Z`.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatTimestamp(date))
        }
        return encoder
    }

    /// Decoder for contracts. Accepts timestamps with or without fractional seconds.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseTimestamp(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected an ISO-8601 UTC timestamp such as 2026-11-21T14:31:09Z, got \"\(text)\""
                )
            }
            return date
        }
        return decoder
    }

    /// Encodes a value with the contract conventions (one encoder, made once: its settings
    /// never change, so every thread may use it).
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try sharedEncoder.encode(value)
    }

    private static let sharedEncoder = encoder()

    /// Decodes a value with the contract conventions.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws -> T {
        let decoder = decoder()
        decoder.userInfo = userInfo
        return try decoder.decode(type, from: data)
    }


    /// Formats a date as an ISO-8601 UTC timestamp with milliseconds (truncated), so that
    /// what `parseTimestamp` read is written back as the same text (`ISO8601Timestamp`). An
    /// instant outside the years 0000 to 9999 (an expiry computed far ahead) is written as the
    /// nearest one inside, so that whatever Herald writes it can read.
    public static func formatTimestamp(_ date: Date) -> String {
        let bounded = min(max(date, ISO8601Timestamp.earliest), ISO8601Timestamp.latest)
        return ISO8601Timestamp.format(bounded) ?? ISO8601Timestamp.format(ISO8601Timestamp.earliest)!
    }

    /// Parses an RFC 3339 timestamp (OpenAPI's `date-time`). Herald's own forms are read
    /// fastest (`ISO8601Timestamp.parse`); any other, such as offsets or other fraction
    /// lengths, by the general reader.
    public static func parseTimestamp(_ text: String) -> Date? {
        ISO8601Timestamp.parse(text) ?? ISO8601Timestamp.parseRFC3339(text)
    }

    /// Whether a value `JSONSerialization` produced is a JSON boolean. On Linux a JSON 0 or 1
    /// also passes `is Bool`; a boolean comes as its own subclass of `NSNumber`, the type the
    /// parser gives `true`. Compared as a type: formatting the type's name, as the gateway and
    /// the sandbox did, was 3 % of the gateway's CPU.
    public static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == booleanType
    }

    private static let booleanType: Any.Type = {
        let parsed = (try? JSONSerialization.jsonObject(with: Data("true".utf8), options: [.fragmentsAllowed])) ?? true
        return type(of: parsed)
    }()

    /// A human-readable description of a decoding failure: the path of the offending field
    /// and what was wrong with it, for dead-letter reasons and problem details.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the document" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))"
            return "missing field \"\(key.stringValue)\"\(parent)"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON: \(context.debugDescription)" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}
