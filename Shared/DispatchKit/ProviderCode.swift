/// A result code on the send path, of a type that says whose table it comes from: a
/// provider's own (`FCMErrorCode`, `HMSResultCode`), an HTTP status read by its class
/// (`HTTPStatusCode`), or the dispatcher's (`DispatchCode`). The compiler checks an answer
/// table's codes; `raw` is the code as written, what outcomes and the status API show.
public protocol ProviderCode: Sendable, CustomStringConvertible {
    /// The code as the provider (or the dispatcher) wrote it.
    var raw: String { get }
}

extension ProviderCode {
    public var description: String { raw }

    /// Whether `other` is the same code of the same table.
    func isSame(as other: any ProviderCode) -> Bool {
        type(of: self) == type(of: other) && raw == other.raw
    }
}

/// An HTTP status read by its class alone, for answers a provider's table does not cover
/// (and for webhooks, whose answer is only a status): `HTTP_<status>`.
public struct HTTPStatusCode: ProviderCode, Hashable {
    public let status: Int
    public init(_ status: Int) { self.status = status }
    public var raw: String { "HTTP_\(status)" }
}

extension DispatchCode: ProviderCode {
    public var raw: String { rawValue }
}
