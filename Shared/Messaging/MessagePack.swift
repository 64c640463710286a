import Foundation
import JSONKit

/// Several messages of one kind, bound for the same exchange and routing key, carried as one
/// AMQP message: the body is the JSON array of their bodies, the `type` is theirs, and the
/// `x-herald-pack` header says how many there are. A stage packs the outputs it publishes
/// together (the deliveries of a fan-out, the outcomes of a window of sends), so the broker
/// stores, routes, confirms and acknowledges one message instead of a hundred; the next
/// stage unpacks them and handles each on its own. Single messages are never packed, so a
/// message published by hand (or by an older Herald) is still read as before.
public enum MessagePack {
    /// The header that marks a pack and counts its elements.
    public static let header = "x-herald-pack"
    /// At most this many elements per pack.
    public static let maxCount = 100
    /// A pack is closed before its body would pass this many bytes.
    public static let maxBytes = 256 * 1024
    /// The headers of the W3C trace context: the only headers an element may have of its own.
    /// A pack carries each element's in an array header of the same position
    /// (`x-herald-traceparents`, `x-herald-tracestates`), since its elements may belong to
    /// different traces.
    public static let traceHeaderNames: Set<String> = ["traceparent", "tracestate"]
    static let elementTraceHeaders = ["traceparent": "x-herald-traceparents", "tracestate": "x-herald-tracestates"]

    /// How many elements `message` carries (1 for a message that is not a pack).
    public static func count(of properties: MessageProperties) -> Int {
        guard let value = properties.headers[header]?.intValue else { return 1 }
        return max(1, Int(clamping: value))
    }

    public static func isPack(_ properties: MessageProperties) -> Bool {
        properties.headers[header] != nil
    }

    /// What messages that travel together share: exchange, routing key, type and mandatory flag.
    public struct Key: Hashable, Sendable {
        public var exchange: String
        public var routingKey: String
        public var type: String
        public var mandatory: Bool
    }

    /// The key `message` is packed under, or nil when it must travel alone: persistent, with
    /// a type, and no headers (but its trace context) or reply-to of its own. Expiries may
    /// differ: a pack expires when its last element would (`expiration`).
    public static func key(of message: OutgoingMessage) -> Key? {
        guard let type = message.properties.type, message.properties.persistent,
              message.properties.headers.keys.allSatisfy(traceHeaderNames.contains),
              message.properties.replyTo == nil else { return nil }
        return Key(exchange: message.exchange, routingKey: message.routingKey, type: type, mandatory: message.mandatory)
    }

    /// Whether a body of `size` bytes still fits a pack that holds `count` elements in
    /// `bytes` bytes so far (the first element always fits).
    static func fits(_ size: Int, count: Int, bytes: Int) -> Bool {
        count == 0 || (count < maxCount && bytes + size + 1 <= maxBytes)
    }

    /// `messages` with those that can travel together packed: same exchange, routing key,
    /// type and mandatory flag, persistent, no headers of their own. Every
    /// message keeps its order among those it is packed with.
    public static func pack(_ messages: [OutgoingMessage]) -> [OutgoingMessage] {
        guard messages.count > 1 else { return messages }
        var order: [Key] = []
        var groups: [Key: [OutgoingMessage]] = [:]
        var result: [OutgoingMessage] = []
        for message in messages {
            guard let key = key(of: message) else {
                result.append(message)
                continue
            }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(message)
        }
        for key in order {
            let group = groups[key]!
            var start = 0
            while start < group.count {
                var end = start
                var bytes = 2
                while end < group.count, fits(group[end].body.count, count: end - start, bytes: bytes) {
                    bytes += group[end].body.count + 1
                    end += 1
                }
                result.append(packed(group[start..<end]))
                start = end
            }
        }
        return result
    }

    /// `elements` as one message (the element itself when there is one).
    static func packed(_ elements: some Collection<OutgoingMessage>) -> OutgoingMessage {
        guard elements.count > 1 else { return elements.first! }
        var body = Data(capacity: elements.reduce(2) { $0 + $1.body.count + 1 })
        body.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(element.body)
        }
        body.append(UInt8(ascii: "]"))
        let first = elements.first!
        var properties = first.properties
        properties.timestamp = Date()
        properties.headers = [header: .int(Int64(elements.count))]
        for (name, packed) in elementTraceHeaders where elements.contains(where: { $0.properties.headers[name] != nil }) {
            properties.headers[packed] = .array(elements.map { $0.properties.headers[name] ?? .string("") })
        }
        properties.expiration = expiration(of: elements)
        return OutgoingMessage(exchange: first.exchange, routingKey: first.routingKey, body: body, properties: properties, mandatory: first.mandatory)
    }
}

extension MessagePack {
    /// The per-message TTL of a pack (milliseconds, as AMQP's `expiration`): the longest of
    /// its elements', none if any element has none. The broker keeps the pack while any of
    /// its elements may still be wanted; the consumer drops an element that expired.
    static func expiration(of elements: some Collection<OutgoingMessage>) -> String? {
        var longest: Int64 = 0
        for element in elements {
            guard let text = element.properties.expiration, let milliseconds = Int64(text) else { return nil }
            longest = max(longest, milliseconds)
        }
        return String(longest)
    }
}

extension MessagePack {
    /// The trace headers of element `index` of a message with `properties` (a pack's from its
    /// arrays, a lone message's its own); empty when it carries none.
    public static func traceHeaders(of properties: MessageProperties, element index: Int) -> [String: HeaderValue] {
        var headers: [String: HeaderValue] = [:]
        if isPack(properties) {
            for (name, packed) in elementTraceHeaders {
                if let values = properties.headers[packed]?.arrayValue, values.indices.contains(index),
                   let value = values[index].stringValue, !value.isEmpty {
                    headers[name] = .string(value)
                }
            }
        } else {
            for name in traceHeaderNames { headers[name] = properties.headers[name] }
        }
        return headers
    }
}

extension ReceivedMessage {
    /// The elements of a pack as messages of their own (unsettleable: settle the pack), each
    /// with the pack's properties but for the header; `[self]` for a message that is not a
    /// pack. `ids` gives an element's `message_id` and `correlation_id` from its body (nil:
    /// the pack's). For tools and tests: stages decode a pack's body directly.
    public func unpacked(ids: (Data) -> (messageId: String, correlationId: String)? = { _ in nil }) throws -> [ReceivedMessage] {
        guard MessagePack.isPack(properties) else { return [self] }
        guard let array = (try? JSONValue(json: body))?.arrayValue else {
            throw MessagingError(.invalidMessage, "a \(MessagePack.header) message whose body is not a JSON array")
        }
        var properties = properties
        properties.headers[MessagePack.header] = nil
        for packed in MessagePack.elementTraceHeaders.values { properties.headers[packed] = nil }
        return try array.enumerated().map { index, element in
            let body = element.json
            var properties = properties
            properties.headers.merge(MessagePack.traceHeaders(of: self.properties, element: index)) { $1 }
            if let (messageId, correlationId) = ids(body) {
                properties.messageId = messageId
                properties.correlationId = correlationId
            }
            return ReceivedMessage(
                body: body, properties: properties, exchange: exchange, routingKey: routingKey, redelivered: redelivered,
                deliveryTag: deliveryTag, settlement: nil)
        }
    }
}
