import Foundation

/// Writes compact JSON byte for byte as Herald's contract encoder (`HeraldJSON.encoder()`)
/// does (sorted keys, slashes not escaped, control characters as `\u00xx`), without
/// `JSONEncoder`'s per-value boxing; or, for people, indented. For the contracts a service
/// writes thousands of times a second; the tests compare its output with the encoder's.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var needsComma = false
    /// Whether to write for people: each member and element on a line of its own, indented
    /// by two spaces a level, `"key" : value`.
    @usableFromInline let pretty: Bool
    @usableFromInline var depth = 0
    /// Whether the object or array just begun has no member or element yet.
    @usableFromInline var empty = false

    @inlinable public init(capacity: Int = 512, pretty: Bool = false) {
        storage.reserveCapacity(capacity)
        self.pretty = pretty
    }

    /// The bytes written so far, as `Data`.
    public var data: Data { Data(storage) }

    @inlinable public mutating func beginObject() {
        open(UInt8(ascii: "{"))
    }

    @inlinable public mutating func endObject() {
        close(UInt8(ascii: "}"))
    }

    @inlinable public mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    @inlinable public mutating func endArray() {
        close(UInt8(ascii: "]"))
    }

    /// An object member's name; the value follows with one of the value calls. Callers write
    /// members in sorted order.
    @inlinable public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        if pretty { storage.append(contentsOf: " : ".utf8) } else { storage.append(UInt8(ascii: ":")) }
        needsComma = false
        // The value follows on the key's line.
        afterKey = true
    }

    /// Whether a key was just written, so the value stays on its line.
    @usableFromInline var afterKey = false

    @inlinable mutating func open(_ bracket: UInt8) {
        separate()
        storage.append(bracket)
        needsComma = false
        depth += 1
        empty = true
    }

    @inlinable mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty && !empty { newline() }
        storage.append(bracket)
        needsComma = true
        empty = false
        afterKey = false
    }

    @inlinable mutating func newline() {
        storage.append(UInt8(ascii: "\n"))
        storage.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    @inlinable public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    @inlinable public mutating func int(_ value: Int) {
        separate()
        storage.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    @inlinable public mutating func bool(_ value: Bool) {
        separate()
        storage.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// A string map as an object with its keys sorted.
    @inlinable public mutating func stringMap(_ map: [String: String]) {
        beginObject()
        for name in map.keys.sorted() {
            key(name)
            string(map[name]!)
        }
        endObject()
    }

    @inlinable public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    @inlinable public mutating func null() {
        separate()
        storage.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Any value; an object's members in sorted order, a number as its text.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let text):
            separate()
            storage.append(contentsOf: text.utf8)
            needsComma = true
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted() {
                key(name)
                self.value(members[name]!)
            }
            endObject()
        }
    }

    @inlinable mutating func separate() {
        if needsComma { storage.append(UInt8(ascii: ",")) }
        if pretty && !afterKey && depth > 0 { newline() }
        afterKey = false
        empty = false
    }

    @usableFromInline static let hex = Array("0123456789abcdef".utf8)

    @inlinable mutating func appendQuoted(_ text: String) {
        storage.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                storage.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): storage.append(byte)
                case 0x08: storage.append(UInt8(ascii: "b"))
                case 0x09: storage.append(UInt8(ascii: "t"))
                case 0x0A: storage.append(UInt8(ascii: "n"))
                case 0x0C: storage.append(UInt8(ascii: "f"))
                case 0x0D: storage.append(UInt8(ascii: "r"))
                default: storage.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
                }
            }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        storage.append(UInt8(ascii: "\""))
    }
}
