/// Why a request got no (complete) HTTP response. Every reason but `invalidRequest` and
/// `responseTooLarge` may succeed when tried again.
public struct HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The host could not be resolved or reached, or refused the connection.
        case connect
        /// No complete answer within the timeout.
        case timeout
        /// TLS failed: handshake, certificate, CA file.
        case tls
        /// The connection broke or the peer spoke bad HTTP.
        case transfer
        /// The URL or an option was refused before sending.
        case invalidRequest
        /// The transport was closed.
        case shutdown
        /// No slot came free within `maxQueueWait` (too many requests, or a host too slow).
        case overloaded
        /// The response body was larger than `maxResponseBodyBytes`; it was not read further.
        case responseTooLarge
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
