import Foundation

/// A value in an AMQP header table (`headers`, `x-death`, queue arguments).
public enum HeaderValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case double(Double)
    case bytes([UInt8])
    case timestamp(Date)
    case array([HeaderValue])
    case table([String: HeaderValue])
    case void

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    public var arrayValue: [HeaderValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var tableValue: [String: HeaderValue]? {
        if case .table(let t) = self { return t }
        return nil
    }

    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): String(b)
        case .double(let d): String(d)
        case .bytes(let b): "<\(b.count) bytes>"
        case .timestamp(let d): d.description
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .table(let t): "{" + t.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .void: "void"
        }
    }
}
