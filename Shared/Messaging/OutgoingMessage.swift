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
}
