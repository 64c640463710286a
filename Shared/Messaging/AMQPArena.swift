import CRabbitMQ
import Foundation

/// Scratch memory for building rabbitmq-c arguments from Swift values: strings, tables and
/// properties are copied into an `amqp_pool_t` that lives until `recycle()`, so no pointer
/// into a Swift string outlives the call that made it. Confined to one connection thread.
final class AMQPArena {
    private let pool: UnsafeMutablePointer<amqp_pool_t>

    init(pageSize: Int = 16 * 1024) {
        pool = .allocate(capacity: 1)
        init_amqp_pool(pool, pageSize)
    }

    deinit {
        empty_amqp_pool(pool)
        pool.deallocate()
    }

    /// Frees everything allocated since the last recycle, keeping the pages for reuse.
    func recycle() {
        recycle_amqp_pool(pool)
    }

    /// A copy of `string`'s UTF-8 bytes in the pool.
    func bytes(_ string: String) -> amqp_bytes_t {
        var utf8 = string
        return utf8.withUTF8 { buffer in copy(UnsafeRawBufferPointer(buffer)) }
    }

    func bytes(_ data: [UInt8]) -> amqp_bytes_t {
        data.withUnsafeBytes { copy($0) }
    }

    private func copy(_ source: UnsafeRawBufferPointer) -> amqp_bytes_t {
        var result = amqp_bytes_t(len: 0, bytes: nil)
        guard source.count > 0 else { return result }
        amqp_pool_alloc_bytes(pool, source.count, &result)
        if let destination = result.bytes, let base = source.baseAddress {
            destination.copyMemory(from: base, byteCount: source.count)
        }
        return result
    }

    /// An AMQP field table holding `entries`.
    func table(_ entries: [(key: String, value: HeaderValue)]) -> amqp_table_t {
        guard !entries.isEmpty else { return amqp_empty_table }
        let raw = amqp_pool_alloc(pool, MemoryLayout<amqp_table_entry_t>.stride * entries.count)!
        let pointer = raw.bindMemory(to: amqp_table_entry_t.self, capacity: entries.count)
        for (index, entry) in entries.enumerated() {
            pointer[index] = amqp_table_entry_t(key: bytes(entry.key), value: field(entry.value))
        }
        return amqp_table_t(num_entries: Int32(entries.count), entries: pointer)
    }

    func table(_ dictionary: [String: HeaderValue]) -> amqp_table_t {
        table(dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    func field(_ value: HeaderValue) -> amqp_field_value_t {
        var field = amqp_field_value_t()
        switch value {
        case .string(let s):
            field.kind = UInt8(AMQP_FIELD_KIND_UTF8.rawValue)
            field.value.bytes = bytes(s)
        case .int(let i):
            field.kind = UInt8(AMQP_FIELD_KIND_I64.rawValue)
            field.value.i64 = i
        case .bool(let b):
            field.kind = UInt8(AMQP_FIELD_KIND_BOOLEAN.rawValue)
            field.value.boolean = b ? 1 : 0
        case .double(let d):
            field.kind = UInt8(AMQP_FIELD_KIND_F64.rawValue)
            field.value.f64 = d
        case .bytes(let b):
            field.kind = UInt8(AMQP_FIELD_KIND_BYTES.rawValue)
            field.value.bytes = bytes(b)
        case .timestamp(let date):
            field.kind = UInt8(AMQP_FIELD_KIND_TIMESTAMP.rawValue)
            field.value.u64 = UInt64(max(0, date.timeIntervalSince1970))
        case .array(let values):
            field.kind = UInt8(AMQP_FIELD_KIND_ARRAY.rawValue)
            if values.isEmpty {
                field.value.array = amqp_array_t(num_entries: 0, entries: nil)
            } else {
                let raw = amqp_pool_alloc(pool, MemoryLayout<amqp_field_value_t>.stride * values.count)!
                let pointer = raw.bindMemory(to: amqp_field_value_t.self, capacity: values.count)
                for (index, element) in values.enumerated() { pointer[index] = self.field(element) }
                field.value.array = amqp_array_t(num_entries: Int32(values.count), entries: pointer)
            }
        case .table(let t):
            field.kind = UInt8(AMQP_FIELD_KIND_TABLE.rawValue)
            field.value.table = table(t)
        case .void:
            field.kind = UInt8(AMQP_FIELD_KIND_VOID.rawValue)
        }
        return field
    }

    /// The basic properties of `properties`, with the flags of the fields that are set.
    func basicProperties(_ properties: MessageProperties) -> amqp_basic_properties_t {
        var props = amqp_basic_properties_t()
        var flags: UInt32 = 0
        func set(_ value: String?, _ flag: Int32, _ assign: (amqp_bytes_t) -> Void) {
            guard let value else { return }
            assign(bytes(value))
            flags |= UInt32(bitPattern: flag)
        }
        set(properties.contentType, AMQP_BASIC_CONTENT_TYPE_FLAG) { props.content_type = $0 }
        set(properties.type, AMQP_BASIC_TYPE_FLAG) { props.type = $0 }
        set(properties.messageId, AMQP_BASIC_MESSAGE_ID_FLAG) { props.message_id = $0 }
        set(properties.correlationId, AMQP_BASIC_CORRELATION_ID_FLAG) { props.correlation_id = $0 }
        set(properties.replyTo, AMQP_BASIC_REPLY_TO_FLAG) { props.reply_to = $0 }
        set(properties.expiration, AMQP_BASIC_EXPIRATION_FLAG) { props.expiration = $0 }
        set(properties.appId, AMQP_BASIC_APP_ID_FLAG) { props.app_id = $0 }
        if let timestamp = properties.timestamp {
            props.timestamp = UInt64(max(0, timestamp.timeIntervalSince1970))
            flags |= UInt32(bitPattern: AMQP_BASIC_TIMESTAMP_FLAG)
        }
        props.delivery_mode = properties.persistent ? 2 : 1
        flags |= UInt32(bitPattern: AMQP_BASIC_DELIVERY_MODE_FLAG)
        if !properties.headers.isEmpty {
            props.headers = table(properties.headers)
            flags |= UInt32(bitPattern: AMQP_BASIC_HEADERS_FLAG)
        }
        props._flags = amqp_flags_t(flags)
        return props
    }
}

/// Conversions from rabbitmq-c values to Swift values (copies; nothing borrowed survives).
enum AMQPDecode {
    static func string(_ bytes: amqp_bytes_t) -> String {
        guard bytes.len > 0, let base = bytes.bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base, count: bytes.len), as: UTF8.self)
    }

    static func data(_ bytes: amqp_bytes_t) -> Data {
        guard bytes.len > 0, let base = bytes.bytes else { return Data() }
        return Data(bytes: base, count: bytes.len)
    }

    static func table(_ table: amqp_table_t) -> [String: HeaderValue] {
        var result: [String: HeaderValue] = [:]
        guard table.num_entries > 0, let entries = table.entries else { return result }
        for index in 0..<Int(table.num_entries) {
            let entry = entries[index]
            result[string(entry.key)] = value(entry.value)
        }
        return result
    }

    static func value(_ field: amqp_field_value_t) -> HeaderValue {
        let kind = UInt32(field.kind)
        switch kind {
        case AMQP_FIELD_KIND_UTF8.rawValue: return .string(string(field.value.bytes))
        case AMQP_FIELD_KIND_BYTES.rawValue:
            let b = field.value.bytes
            guard b.len > 0, let base = b.bytes else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: base, count: b.len)))
        case AMQP_FIELD_KIND_BOOLEAN.rawValue: return .bool(field.value.boolean != 0)
        case AMQP_FIELD_KIND_I8.rawValue: return .int(Int64(field.value.i8))
        case AMQP_FIELD_KIND_U8.rawValue: return .int(Int64(field.value.u8))
        case AMQP_FIELD_KIND_I16.rawValue: return .int(Int64(field.value.i16))
        case AMQP_FIELD_KIND_U16.rawValue: return .int(Int64(field.value.u16))
        case AMQP_FIELD_KIND_I32.rawValue: return .int(Int64(field.value.i32))
        case AMQP_FIELD_KIND_U32.rawValue: return .int(Int64(field.value.u32))
        case AMQP_FIELD_KIND_I64.rawValue: return .int(field.value.i64)
        case AMQP_FIELD_KIND_U64.rawValue: return .int(Int64(truncatingIfNeeded: field.value.u64))
        case AMQP_FIELD_KIND_F32.rawValue: return .double(Double(field.value.f32))
        case AMQP_FIELD_KIND_F64.rawValue: return .double(field.value.f64)
        case AMQP_FIELD_KIND_TIMESTAMP.rawValue:
            return .timestamp(Date(timeIntervalSince1970: TimeInterval(field.value.u64)))
        case AMQP_FIELD_KIND_TABLE.rawValue: return .table(table(field.value.table))
        case AMQP_FIELD_KIND_ARRAY.rawValue:
            let array = field.value.array
            guard array.num_entries > 0, let entries = array.entries else { return .array([]) }
            return .array((0..<Int(array.num_entries)).map { value(entries[$0]) })
        default: return .void
        }
    }

    static func properties(_ p: amqp_basic_properties_t) -> MessageProperties {
        let flags = UInt32(p._flags)
        func has(_ flag: Int32) -> Bool { flags & UInt32(bitPattern: flag) != 0 }
        return MessageProperties(
            contentType: has(AMQP_BASIC_CONTENT_TYPE_FLAG) ? string(p.content_type) : nil,
            type: has(AMQP_BASIC_TYPE_FLAG) ? string(p.type) : nil,
            messageId: has(AMQP_BASIC_MESSAGE_ID_FLAG) ? string(p.message_id) : nil,
            correlationId: has(AMQP_BASIC_CORRELATION_ID_FLAG) ? string(p.correlation_id) : nil,
            replyTo: has(AMQP_BASIC_REPLY_TO_FLAG) ? string(p.reply_to) : nil,
            expiration: has(AMQP_BASIC_EXPIRATION_FLAG) ? string(p.expiration) : nil,
            timestamp: has(AMQP_BASIC_TIMESTAMP_FLAG) ? Date(timeIntervalSince1970: TimeInterval(p.timestamp)) : nil,
            appId: has(AMQP_BASIC_APP_ID_FLAG) ? string(p.app_id) : nil,
            persistent: has(AMQP_BASIC_DELIVERY_MODE_FLAG) && p.delivery_mode == 2,
            headers: has(AMQP_BASIC_HEADERS_FLAG) ? table(p.headers) : [:])
    }
}
