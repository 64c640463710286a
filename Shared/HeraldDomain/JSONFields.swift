import Foundation
import HeraldModel
import JSONKit

/// A request body's JSON object read strictly (the gateway's and each source's adapter): each
/// accessor names the field (with its path) in the error when it is missing or of the wrong
/// type. The body is read once, by `JSONReader`, into `JSONValue`s.
public struct JSONFields: Sendable {
    public let object: [String: JSONValue]
    public let path: String

    public init(_ data: Data) throws(GatewayError) {
        let parsed: JSONValue
        do {
            parsed = try JSONValue(json: data)
        } catch {
            throw GatewayError(400, "Malformed JSON", "the body is not valid JSON")
        }
        guard case .object(let object) = parsed else {
            throw GatewayError(400, "Invalid request", "the body must be a JSON object")
        }
        self.init(object: object, path: "")
    }

    public init(object: [String: JSONValue], path: String) {
        self.object = object
        self.path = path
    }

    public func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the body has `key`, even as null (which no typed field accepts).
    public func has(_ key: String) -> Bool { object[key] != nil }

    /// The value of `key`, nil when absent; a null is refused, not read as absent, so that
    /// the OpenAPI document (no field is nullable) and the gateway agree.
    private func present(_ key: String) throws(GatewayError) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if value == .null { throw .invalid(name(key), "must not be null (leave it out instead)") }
        return value
    }

    public func string(_ key: String, maxLength: Int = TextLimits.long) throws(GatewayError) -> String {
        guard let value = try optionalString(key, maxLength: maxLength) else { throw .invalid(name(key), "is required") }
        return value
    }

    /// The string of `key`, nil when absent; an empty string is refused, or read as absent
    /// with `emptyIsAbsent` (for an upstream that sends `""` for "none", as Verity does).
    public func optionalString(_ key: String, maxLength: Int = TextLimits.long, emptyIsAbsent: Bool = false) throws(GatewayError) -> String? {
        guard let value = try present(key) else { return nil }
        guard let text = value.stringValue else { throw .invalid(name(key), "must be a string") }
        if text.isEmpty && emptyIsAbsent { return nil }
        guard !text.isEmpty else { throw .invalid(name(key), "must not be empty") }
        guard TextLimits.fits(text, maximum: maxLength) else { throw .invalid(name(key), "must be at most \(maxLength) characters") }
        return text
    }

    public func optionalInt(_ key: String) throws(GatewayError) -> Int? {
        guard let value = try present(key) else { return nil }
        guard let integer = value.intValue else { throw .invalid(name(key), "must be an integer") }
        return integer
    }

    public func int(_ key: String) throws(GatewayError) -> Int {
        guard let value = try optionalInt(key) else { throw .invalid(name(key), "is required") }
        return value
    }

    public func optionalBool(_ key: String) throws(GatewayError) -> Bool? {
        guard let value = try present(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalid(name(key), "must be true or false") }
        return flag
    }

    public func oneOf(_ key: String, _ allowed: [String]) throws(GatewayError) -> String {
        let value = try string(key)
        guard allowed.contains(value) else { throw .invalid(name(key), "must be one of \(allowed.joined(separator: ", ")), not \"\(value)\"") }
        return value
    }

    public func strings(_ key: String, allowEmpty: Bool = false) throws(GatewayError) -> [String] {
        guard let value = try present(key) else { throw .invalid(name(key), "is required") }
        guard let list = value.arrayValue else { throw .invalid(name(key), "must be an array of strings") }
        var result: [String] = []
        for (index, element) in list.enumerated() {
            guard let text = element.stringValue, TextLimits.fits(text, maximum: TextLimits.identifier) else {
                throw .invalid("\(name(key))[\(index)]", "must be a string of 1 to \(TextLimits.identifier) characters")
            }
            result.append(text)
        }
        guard allowEmpty || !result.isEmpty else { throw .invalid(name(key), "must not be empty") }
        guard result.count <= 100_000 else { throw .invalid(name(key), "lists at most 100,000 entries") }
        return result
    }

    public func nested(_ key: String) throws(GatewayError) -> JSONFields {
        guard let value = try optionalNested(key) else { throw .invalid(name(key), "is required") }
        return value
    }

    public func optionalNested(_ key: String) throws(GatewayError) -> JSONFields? {
        guard let value = try present(key) else { return nil }
        guard let object = value.objectValue else { throw .invalid(name(key), "must be an object") }
        return JSONFields(object: object, path: name(key))
    }

    /// A string map (every value a string).
    public func stringMap(_ key: String) throws(GatewayError) -> [String: String] {
        guard let value = try present(key) else { return [:] }
        guard let object = value.objectValue else { throw .invalid(name(key), "must be an object of strings") }
        var map: [String: String] = [:]
        for (field, value) in object {
            guard let text = value.stringValue else { throw .invalid("\(name(key)).\(field)", "must be a string") }
            map[field] = text
        }
        return map
    }

    /// Any JSON value as compact JSON text (for values passed on as strings): a string as
    /// its text, anything else written again as it came (object keys sorted).
    public func jsonText(_ key: String) -> String? {
        guard let value = object[key] else { return nil }
        return value.stringValue ?? value.text
    }

    /// The fields of a body read by a decoder, as a tree (a list's elements share their
    /// list's entry); `[:]` below a field means any value. Unknown fields are ignored, nulls
    /// in them too.
    public indirect enum Fields: Sendable {
        case object([String: Fields])
        case any
    }

    /// `herald.event.v1` as `POST …/events` reads it.
    public static let eventFields: Fields = .object([
        "id": .any, "source": .any, "kind": .any, "app": .any, "occurredAt": .any,
        "audience": .object(["users": .any, "pushIds": .any, "devices": .any, "emailAddressId": .any,
                             "tokens": .object(["platform": .any, "token": .any])]),
        "context": .any, "data": .any,
        "alert": .object(["template": .any, "args": .any, "title": .any, "body": .any]),
        "options": .object(["ttlSeconds": .any, "priority": .any, "collapseKey": .any, "critical": .any, "encryption": .any, "hideData": .any]),
    ])

    /// A device's notification configuration as `PUT …/configuration` reads it.
    public static let configurationFields: Fields = .object([
        "entries": .object(["service": .any, "enabled": .any, "rule": .object(["field": .any, "value": .any])]),
    ])

    /// The path of the first null among the `known` fields of `value`, or nil: no field of
    /// the API is nullable (a decoder would read a null as absent).
    public static func firstNull(in value: JSONValue, at path: String, known: Fields) -> String? {
        switch value {
        case .null:
            return path.isEmpty ? "body" : path
        case .object(let object):
            for key in object.keys.sorted() {
                let below: Fields
                switch known {
                case .any: below = .any
                case .object(let fields):
                    guard let field = fields[key] else { continue }
                    below = field
                }
                if let found = firstNull(in: object[key]!, at: path.isEmpty ? key : "\(path).\(key)", known: below) { return found }
            }
        case .array(let list):
            for (index, element) in list.enumerated() {
                if let found = firstNull(in: element, at: "\(path)[\(index)]", known: known) { return found }
            }
        default:
            break
        }
        return nil
    }
}
