import Foundation

/// A message to publish: where it goes, its body and its properties.
public struct OutgoingMessage: Sendable, Hashable {
    public var exchange: String
    public var routingKey: String
    public var body: Data
    public var properties: MessageProperties
    /// When true, a message that matches no queue fails its publish with `.unroutable`
    /// instead of vanishing.
    public var mandatory: Bool

    public init(
        exchange: String, routingKey: String, body: Data,
        properties: MessageProperties = MessageProperties(), mandatory: Bool = false
    ) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
        self.properties = properties
        self.mandatory = mandatory
    }

    /// Why AMQP cannot carry this message, or nil: names, routing key and short-string
    /// properties are at most 255 bytes on the wire, and a longer one would break the channel.
    public var problem: String? {
        var fields = [("exchange", exchange), ("routing key", routingKey)]
        for (name, value) in [("content type", properties.contentType), ("type", properties.type), ("message id", properties.messageId),
                              ("correlation id", properties.correlationId), ("reply-to", properties.replyTo),
                              ("expiration", properties.expiration), ("app id", properties.appId)] {
            if let value { fields.append((name, value)) }
        }
        fields += properties.headers.keys.map { ("header name", $0) }
        for (name, value) in fields where value.utf8.count > 255 {
            return "the \(name) is \(value.utf8.count) bytes; AMQP allows 255"
        }
        return nil
    }
}
