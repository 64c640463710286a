import Foundation
import HeraldModel

/// A JSON object read strictly: each accessor names the field (with its path) in the error
/// when it is missing or of the wrong type.
struct JSONFields {
    let object: [String: Any]
    let path: String

    init(_ data: Data) throws(GatewayError) {
        guard let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw GatewayError(400, "Malformed JSON", "the body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw GatewayError(400, "Invalid request", "the body must be a JSON object")
        }
        self.init(object: object, path: "")
    }

    init(object: [String: Any], path: String) {
        self.object = object
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

    func string(_ key: String, maxLength: Int = 4096) throws(GatewayError) -> String {
        guard let value = try optionalString(key, maxLength: maxLength) else { throw .invalid(name(key), "is required") }
        return value
    }

    func optionalString(_ key: String, maxLength: Int = 4096) throws(GatewayError) -> String? {
        guard has(key) else { return nil }
        guard let text = object[key] as? String, !Self.isNumber(object[key]!) else { throw .invalid(name(key), "must be a string") }
        guard !text.isEmpty else { throw .invalid(name(key), "must not be empty") }
        guard text.utf8.count <= maxLength else { throw .invalid(name(key), "must be at most \(maxLength) bytes") }
        return text
    }

    func optionalInt(_ key: String) throws(GatewayError) -> Int? {
        guard has(key) else { return nil }
        guard let number = object[key] as? NSNumber, Self.isNumber(number), !HeraldJSON.isBoolean(number),
              number.doubleValue == number.doubleValue.rounded(), abs(number.doubleValue) < 1e15 else {
            throw .invalid(name(key), "must be an integer")
        }
        return number.intValue
    }

    func int(_ key: String) throws(GatewayError) -> Int {
        guard let value = try optionalInt(key) else { throw .invalid(name(key), "is required") }
        return value
    }

    func optionalBool(_ key: String) throws(GatewayError) -> Bool? {
        guard has(key) else { return nil }
        guard let number = object[key] as? NSNumber, HeraldJSON.isBoolean(number) else { throw .invalid(name(key), "must be true or false") }
        return number.boolValue
    }

    func oneOf(_ key: String, _ allowed: [String]) throws(GatewayError) -> String {
        let value = try string(key)
        guard allowed.contains(value) else { throw .invalid(name(key), "must be one of \(allowed.joined(separator: ", ")), not \"\(value)\"") }
        return value
    }

    func strings(_ key: String, allowEmpty: Bool = false) throws(GatewayError) -> [String] {
        guard has(key) else { throw .invalid(name(key), "is required") }
        guard let list = object[key] as? [Any] else { throw .invalid(name(key), "must be an array of strings") }
        var result: [String] = []
        for (index, element) in list.enumerated() {
            guard let text = element as? String, !Self.isNumber(element), !text.isEmpty, text.utf8.count <= 256 else {
                throw .invalid("\(name(key))[\(index)]", "must be a non-empty string of at most 256 bytes")
            }
            result.append(text)
        }
        guard allowEmpty || !result.isEmpty else { throw .invalid(name(key), "must not be empty") }
        guard result.count <= 100_000 else { throw .invalid(name(key), "lists at most 100,000 entries") }
        return result
    }

    func nested(_ key: String) throws(GatewayError) -> JSONFields {
        guard let value = try optionalNested(key) else { throw .invalid(name(key), "is required") }
        return value
    }

    func optionalNested(_ key: String) throws(GatewayError) -> JSONFields? {
        guard has(key) else { return nil }
        guard let object = object[key] as? [String: Any] else { throw .invalid(name(key), "must be an object") }
        return JSONFields(object: object, path: name(key))
    }

    /// A string map (every value a string).
    func stringMap(_ key: String) throws(GatewayError) -> [String: String] {
        guard has(key) else { return [:] }
        guard let object = object[key] as? [String: Any] else { throw .invalid(name(key), "must be an object of strings") }
        var map: [String: String] = [:]
        for (field, value) in object {
            guard let text = value as? String, !Self.isNumber(value) else { throw .invalid("\(name(key)).\(field)", "must be a string") }
            map[field] = text
        }
        return map
    }

    /// Any JSON value re-encoded as compact JSON text (for values passed on as strings).
    func jsonText(_ key: String) -> String? {
        guard has(key), let value = object[key] else { return nil }
        if let text = value as? String, !Self.isNumber(value) { return text }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func isNumber(_ value: Any) -> Bool {
        !(value is String) && value is NSNumber
    }
}
