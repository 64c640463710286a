import Foundation

/// One HTTP request for `HTTPTransport`.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The whole request, connecting included; nil for the transport's default.
    public var timeout: Duration?
    /// An IP address (v4, or v6 without brackets) to connect to instead of looking the URL's
    /// host up: the host still names the server (`Host`, TLS name and certificate check), but
    /// no lookup happens that could answer differently from the one the caller checked. Such
    /// a request never goes through a proxy.
    public var connectAddress: String?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: Duration? = nil, connectAddress: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectAddress = connectAddress
    }
}
