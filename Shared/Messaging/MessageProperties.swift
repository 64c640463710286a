import Foundation

/// The AMQP basic properties Herald uses. Messages are persistent unless told otherwise.
public struct MessageProperties: Sendable, Hashable {
    public var contentType: String?
    /// The contract name with its version, e.g. `herald.event.v1`.
    public var type: String?
    public var messageId: String?
    public var correlationId: String?
    public var replyTo: String?
    /// Per-message TTL in milliseconds, as the broker expects it (a decimal string).
    public var expiration: String?
    public var timestamp: Date?
    public var appId: String?
    public var persistent: Bool
    public var headers: [String: HeaderValue]

    public init(
        contentType: String? = "application/json", type: String? = nil, messageId: String? = nil,
        correlationId: String? = nil, replyTo: String? = nil, expiration: String? = nil,
        timestamp: Date? = nil, appId: String? = nil, persistent: Bool = true,
        headers: [String: HeaderValue] = [:]
    ) {
        self.contentType = contentType
        self.type = type
        self.messageId = messageId
        self.correlationId = correlationId
        self.replyTo = replyTo
        self.expiration = expiration
        self.timestamp = timestamp
        self.appId = appId
        self.persistent = persistent
        self.headers = headers
    }
}
