import Foundation

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names in lower case, in the order received.
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// `1.1` or `2`.
    public var httpVersion: String

    public init(status: Int, headers: [(name: String, value: String)], body: Data, httpVersion: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}
