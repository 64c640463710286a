/// An error of the messaging layer, with a reason to switch on and a precise message.
public struct MessagingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        /// The AMQP URL could not be parsed.
        case invalidURL
        /// The TCP connection or the AMQP handshake failed (broker down, wrong credentials, vhost…).
        case connectionFailed
        /// An open connection was lost (socket closed, missed heartbeats, broker closed it).
        case connectionLost
        /// The broker rejected a declaration (e.g. a queue exists with other arguments).
        case topologyMismatch
        /// The broker answered a publish with `basic.nack`.
        case publishRejected
        /// A mandatory publish matched no queue and the broker returned it.
        case unroutable
        /// The publisher or consumer was shut down before the operation completed.
        case shutdown
        /// An RPC call got no reply in time.
        case timeout
        /// A channel-level protocol error.
        case channelError
        /// A message AMQP cannot carry (e.g. a routing key or property over 255 bytes); it
        /// was refused before anything was sent, and the channel is untouched.
        case invalidMessage
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
