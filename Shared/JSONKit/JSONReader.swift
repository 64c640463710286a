import Foundation

/// Reads JSON as a stream of calls (`object`, `string`, `int`, …) without `JSONDecoder`'s
/// per-value boxing, for the contracts a service reads thousands of times a second. It
/// accepts a strict subset of what Herald's contract decoder (`HeraldJSON.decoder()`) accepts and throws `Mismatch` for
/// anything else; callers then decode the same bytes with the decoder, which gives the
/// result or the precise error (see `HeraldJSON.decodeWire`).
public struct JSONReader {
    /// The input is not in the subset this reader handles; the decoder decides.
    public struct Mismatch: Error, Sendable {
        public init() {}
    }

    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var index = 0

    /// Reads from `bytes`, which must outlive the reader (use it inside `withUnsafeBytes`).
    @inlinable public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Reads `data` with `body`, which must consume exactly one value; nil when the data is
    /// outside the reader's subset (or `body` threw).
    public static func read<T>(_ data: Data, _ body: (inout JSONReader) throws -> T) -> T? {
        data.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            guard let value = try? body(&reader), (try? reader.end()) != nil else { return nil }
            return value
        }
    }

    // MARK: Values

    /// An object: `member` is called with each key and must read that member's value.
    @inlinable public mutating func object(_ member: (String, inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if try peek() == UInt8(ascii: "}") { index += 1; return }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(key, &self)
            switch try next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return
            default: throw Mismatch()
            }
        }
    }

    /// An array: `element` is called once per element and must read it.
    @inlinable public mutating func array(_ element: (inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") { index += 1; return }
        while true {
            try element(&self)
            switch try next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return
            default: throw Mismatch()
            }
        }
    }

    /// An optional member's value: nil for `null` (as `decodeIfPresent` reads it), else `read`.
    @inlinable public mutating func optional<T>(_ read: (inout JSONReader) throws -> T) throws -> T? {
        try null() ? nil : read(&self)
    }

    /// Whether the next value is `null`; consumes it if so.
    @inlinable public mutating func null() throws -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    @inlinable public mutating func bool() throws -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw Mismatch()
        }
    }

    /// An integer written as plain digits (no fraction or exponent) that fits in `Int`.
    @inlinable public mutating func int() throws -> Int {
        _ = try peek()
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Int(bytes[index] - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw Mismatch() }
            value = sum
            index += 1
        }
        let count = index - start
        guard count > 0, !(count > 1 && bytes[start] == UInt8(ascii: "0")) else { throw Mismatch() }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { throw Mismatch() }
        return value
    }

    @inlinable public mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII is valid UTF-8 as it is: decoding it is a copy, where validating goes
                // through the standard library's unspecialized generic path (a generic
                // metadata lookup per string, a tenth of some stages' CPU).
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw Mismatch() }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw Mismatch() }
            ascii = ascii && byte < 0x80
            index += 1
        }
        throw Mismatch()
    }

    /// A JSON object of strings.
    @inlinable public mutating func stringMap() throws -> [String: String] {
        var map: [String: String] = [:]
        try object { key, reader in
            guard map.updateValue(try reader.string(), forKey: key) == nil else { throw Mismatch() }
        }
        return map
    }

    @inlinable public mutating func strings() throws -> [String] {
        var list: [String] = []
        try array { list.append(try $0.string()) }
        return list
    }

    /// A string that must be one of `T`'s raw values.
    @inlinable public mutating func raw<T: RawRepresentable>(_ type: T.Type) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: try string()) else { throw Mismatch() }
        return value
    }

    /// Any value as a `JSONValue`: an object's duplicate member keeps its last value, as
    /// Foundation's parser does; objects and arrays nest at most `JSONValue.maximumDepth` deep.
    public mutating func value() throws -> JSONValue {
        try value(depth: 1)
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"):
            guard depth <= JSONValue.maximumDepth else { throw Mismatch() }
            var members: [String: JSONValue] = [:]
            try object { key, reader in members[key] = try reader.value(depth: depth + 1) }
            return .object(members)
        case UInt8(ascii: "["):
            guard depth <= JSONValue.maximumDepth else { throw Mismatch() }
            var elements: [JSONValue] = []
            try array { elements.append(try $0.value(depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try bool())
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    /// A number's text, checked against JSON's grammar: `-`, then `0` or digits not starting
    /// with `0`, then an optional fraction and exponent.
    public mutating func number() throws -> String {
        _ = try peek()
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0, !(integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0")) else { throw Mismatch() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Mismatch() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Mismatch() }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Skips any value (for members a contract does not know).
    public mutating func skip() throws {
        switch try peek() {
        case UInt8(ascii: "{"): try object { _, reader in try reader.skip() }
        case UInt8(ascii: "["): try array { try $0.skip() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): try literal("null")
        default:
            // A number: its characters, checked by the decoder if it ever matters.
            guard [UInt8(ascii: "-")].contains(bytes[index]) || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) else { throw Mismatch() }
            while index < bytes.count, "0123456789+-.eE".utf8.contains(bytes[index]) { index += 1 }
        }
    }

    /// Only whitespace may follow the value.
    @inlinable public mutating func end() throws {
        skipWhitespace()
        guard index == bytes.count else { throw Mismatch() }
    }

    // MARK: Bytes

    @inlinable mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    /// The next significant byte, not consumed.
    @inlinable mutating func peek() throws -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw Mismatch() }
        return bytes[index]
    }

    /// The next significant byte, consumed.
    @inlinable mutating func next() throws -> UInt8 {
        let byte = try peek()
        index += 1
        return byte
    }

    @inlinable mutating func expect(_ byte: UInt8) throws {
        guard try next() == byte else { throw Mismatch() }
    }

    @inlinable mutating func literal(_ word: StaticString) throws {
        guard index + word.utf8CodeUnitCount <= bytes.count else { throw Mismatch() }
        for offset in 0..<word.utf8CodeUnitCount where bytes[index + offset] != word.utf8Start[offset] { throw Mismatch() }
        index += word.utf8CodeUnitCount
    }

    /// The rest of a string with escapes, from its first byte at `start`.
    @usableFromInline mutating func escapedString(from start: Int) throws -> String {
        var utf8 = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw Mismatch() }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Mismatch() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        try literal("\\u")
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Mismatch() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Mismatch() }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw Mismatch()
                }
            default:
                guard byte >= 0x20 else { throw Mismatch() }
                utf8.append(byte)
            }
        }
        throw Mismatch()
    }

    @usableFromInline mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw Mismatch() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Mismatch()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
