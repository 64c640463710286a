import Foundation

/// A message taken with `basic.get`: what a consumer would see, and how many messages
/// were left behind it.
public struct FetchedMessage: Sendable {
    public let body: Data
    public let properties: MessageProperties
    /// The exchange and routing key it was last published (or dead-lettered) with.
    public let exchange: String
    public let routingKey: String
    public let redelivered: Bool
    let deliveryTag: UInt64
    /// Messages ready in the queue after this one was taken.
    public let remaining: Int

    /// The broker's dead-letter history (`x-death`), most recent first.
    public var deaths: [[String: HeaderValue]] {
        properties.headers["x-death"]?.arrayValue?.compactMap(\.tableValue) ?? []
    }
}
