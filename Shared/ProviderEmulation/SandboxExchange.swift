import Foundation

/// A request to the emulated providers, independent of the HTTP front end that received it.
public struct SandboxRequest: Sendable {
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: [String: String]
    /// Header values by lowercased name.
    public var headers: [String: String]
    public var body: Data
    /// The connection the request came on, when the front end tells (HTTPS): APNs judges
    /// how often a provider token changes per connection.
    public var connection: UInt64?

    public init(method: String, target: String, headers: [String: String], body: Data) {
        self.method = method.uppercased()
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts.first ?? "")
        query = parts.count > 1 ? SandboxHTTP.form(Data(parts[1].utf8)) : [:]
        self.headers = headers
        self.body = body
    }

    /// The bearer token of the `Authorization` header.
    public var bearer: String? {
        guard let value = headers["authorization"] else { return nil }
        let bytes = value.utf8
        guard bytes.count > 7, bytes.prefix(7).elementsEqual("bearer ".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        var token = String(decoding: bytes.dropFirst(7).drop(while: { $0 == UInt8(ascii: " ") }), as: UTF8.self)
        while token.last == " " { token.removeLast() }
        return token.isEmpty ? nil : token
    }
}

/// The emulators' answer: status, headers, body, and how long to wait before sending it.
public struct SandboxReply: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Injected latency: the front end answers after this many milliseconds.
    public var delayMilliseconds: Int

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), delayMilliseconds: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayMilliseconds = delayMilliseconds
    }

    public func delayed(by milliseconds: Int) -> SandboxReply {
        var reply = self
        reply.delayMilliseconds += milliseconds
        return reply
    }
}
