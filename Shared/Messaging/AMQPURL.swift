import Foundation

/// A parsed `amqp://user:pass@host:port/vhost` URL, or `amqps://` for AMQP over TLS (port
/// 5671 by default). An empty path means vhost `/`; `%2F` encodes a slash in the vhost, as
/// RabbitMQ's URI spec says. `?heartbeat=N` (seconds) and `?connection_timeout=N`
/// (milliseconds) are honoured.
public struct AMQPURL: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var virtualHost: String
    /// Heartbeat interval in seconds asked for in the URL, if any.
    public var heartbeat: Int?
    /// Connection timeout in milliseconds asked for in the URL, if any.
    public var connectionTimeoutMilliseconds: Int?
    /// How the connection is secured: set for `amqps://`, nil for `amqp://` (in clear).
    public var tls: AMQPTLS?

    public init(
        host: String = "localhost", port: Int = 5672, user: String = "guest",
        password: String = "guest", virtualHost: String = "/"
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.virtualHost = virtualHost
    }

    /// Parses a URL; throws `MessagingError` with reason `.invalidURL` and what was wrong.
    public init(_ text: String) throws {
        func invalid(_ why: String) -> MessagingError {
            MessagingError(.invalidURL, "\(why) (expected amqp://user:pass@host:port/vhost, or amqps:// for TLS)")
        }
        guard let components = URLComponents(string: text) else { throw invalid("not a URL") }
        guard let scheme = components.scheme?.lowercased() else { throw invalid("no scheme") }
        guard scheme == "amqp" || scheme == "amqps" else { throw invalid("unsupported scheme \"\(scheme)\"") }
        self.init()
        if scheme == "amqps" {
            tls = AMQPTLS()
            port = 5671
        }
        if let host = components.host, !host.isEmpty { self.host = host }
        if let port = components.port {
            guard (1...65535).contains(port) else { throw invalid("port \(port) out of range") }
            self.port = port
        }
        if let user = components.user { self.user = user }
        if let password = components.password { self.password = password }
        let path = components.percentEncodedPath
        if path.isEmpty || path == "/" {
            virtualHost = "/"
        } else {
            let encoded = String(path.dropFirst())
            guard !encoded.contains("/") else { throw invalid("a vhost containing / must be written %2F") }
            virtualHost = encoded.removingPercentEncoding ?? encoded
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "heartbeat":
                guard let value = item.value.flatMap(Int.init), value >= 0 else { throw invalid("heartbeat must be a number of seconds") }
                heartbeat = value
            case "connection_timeout":
                guard let value = item.value.flatMap(Int.init), value > 0 else { throw invalid("connection_timeout must be a number of milliseconds") }
                connectionTimeoutMilliseconds = value
            default:
                continue
            }
        }
    }

    /// The URL with the password masked, safe to log.
    public var description: String {
        let vhost = virtualHost == "/" ? "" : virtualHost.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? virtualHost
        return "\(tls == nil ? "amqp" : "amqps")://\(user):***@\(host):\(port)/\(vhost)"
    }
}
