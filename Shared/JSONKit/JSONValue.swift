import Foundation

/// Any JSON value, read with `JSONReader` and written with `JSONWriter` (object keys sorted):
/// a request body read field by field (`JSONFields`), an upstream's own message carried inside
/// a forward, any document Herald passes on or inspects. A number keeps the text it came as,
/// so a value that passes through is written again as it was.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text as JSON writes it (`3`, `-1.5`, `1e300`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// How deep objects and arrays may nest: deeper input is refused rather than read by
    /// ever deeper recursion (Foundation's parsers stop at the same depth).
    public static let maximumDepth = 512

    /// Reads one JSON value (and nothing after it but white space); throws
    /// `JSONReader.Mismatch` for anything that is not JSON.
    public init(json data: Data) throws {
        self = try data.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            let value = try reader.value()
            try reader.end()
            return value
        }
    }

    /// The value as compact JSON (object keys sorted, slashes not escaped).
    public var json: Data {
        var writer = JSONWriter()
        writer.value(self)
        return writer.data
    }

    /// The value as compact JSON text.
    public var text: String { String(decoding: json, as: UTF8.self) }

    /// A number from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A number from a finite double, in its shortest form (`1.5`, `1e+300`).
    public static func double(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 1e15 ? .number(String(Int64(value))) : .number("\(value)")
    }

    /// The members of an object; nil for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array; nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text of a string; nil for any other value (a number is not a string).
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A boolean; nil for any other value (a number is not a boolean).
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A number's value; nil for any other value.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// A number that is an integer (`3`, `3.0`, `3e0`) of at most 15 digits; nil for any other value.
    public var intValue: Int? {
        guard let double = doubleValue, double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    public var isNull: Bool { self == .null }

    /// An object's member; nil for a missing one or any other value.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A value made of what Swift code builds a document from: `String`, `Int`, `Double`,
    /// `Bool`, `[String: Any]`, `[Any]`, `NSNull`, `JSONValue` and optionals of them (nil is
    /// null); throws `Unrepresentable` naming anything else.
    public init(any value: Any) throws(Unrepresentable) {
        switch value {
        case let value as JSONValue: self = value
        case let text as String: self = .string(text)
        // Swift's own types by their exact type: an Int is never taken for a Bool.
        case let flag as Bool where type(of: value) == Bool.self: self = .bool(flag)
        case let integer as Int where type(of: value) == Int.self: self = .int(integer)
        case let integer as Int64 where type(of: value) == Int64.self: self = .number(String(integer))
        case let number as Double where type(of: value) == Double.self:
            guard number.isFinite else { throw Unrepresentable(description: "\(number) is not a JSON number") }
            self = .double(number)
        // Foundation's numbers (what its parser gives): a boolean is its own subclass.
        case let number as NSNumber:
            if type(of: number) == Self.foundationBoolean {
                self = .bool(number.boolValue)
            } else if number.doubleValue == number.doubleValue.rounded(), abs(number.doubleValue) < 9e18 {
                self = .number(String(number.int64Value))
            } else {
                guard number.doubleValue.isFinite else { throw Unrepresentable(description: "\(number) is not a JSON number") }
                self = .double(number.doubleValue)
            }
        case let object as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, member) in object { members[key] = try JSONValue(any: member) }
            self = .object(members)
        case let list as [Any]:
            var elements: [JSONValue] = []
            for element in list { elements.append(try JSONValue(any: element)) }
            self = .array(elements)
        case is NSNull: self = .null
        default:
            // An optional's nil (inside a dictionary of `Any`) is null; anything else is not JSON.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { self = .null; return }
                self = try JSONValue(any: wrapped)
            } else {
                throw Unrepresentable(description: "a \(type(of: value)) is not a JSON value")
            }
        }
    }

    /// The type Foundation's parser gives `true`: on Linux a 0 or 1 also passes `is Bool`.
    private static let foundationBoolean: Any.Type = {
        let parsed = (try? JSONSerialization.jsonObject(with: Data("true".utf8), options: [.fragmentsAllowed])) ?? true
        return type(of: parsed)
    }()

    /// What `init(any:)` cannot write as JSON.
    public struct Unrepresentable: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The value as indented JSON for people (two spaces, object keys sorted), ending without a newline.
    public var prettyText: String {
        var writer = JSONWriter(pretty: true)
        writer.value(self)
        return String(decoding: writer.data, as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(Dictionary(members) { _, last in last })
    }
}

extension JSONValue: Codable {
    /// Decoded from another decoder (a member of a Codable contract): a number as the
    /// integer or double the decoder reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let text):
            // Integers (a com method's type, a count) stay integers on the wire.
            if let integer = Int64(text) { try container.encode(integer) } else { try container.encode(Double(text) ?? 0) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
