import Foundation

/// One HTTP request for `HTTPTransport`.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The whole request, connecting included; nil for the transport's default.
    public var timeout: Duration?

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
