/// `herald.error.v1`: the typed error an RPC command answers with instead of its reply.
/// `status` is the HTTP status the gateway should answer with.
public struct CommandError: Codable, Sendable, Hashable, Error, CustomStringConvertible {
    public static let contractName = ContractName.commandError

    /// A stable, machine-readable code, e.g. `device-not-found`, `invalid-key`.
    public var code: String
    /// What went wrong, precisely enough to fix it.
    public var detail: String
    public var status: Int

    public init(code: String, detail: String, status: Int = 400) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    public var description: String { "\(code): \(detail)" }
}
