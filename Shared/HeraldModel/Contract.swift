import Foundation

/// A versioned wire contract: a `Codable` message that travels over AMQP with its name in
/// the `type` property, its own id in `message_id` and its event id in `correlation_id`.
public protocol Contract: Codable, Sendable {
    /// The contract name with its version, e.g. `herald.event.v1`.
    static var contractName: String { get }
    /// The contract's own id, sent as the AMQP `message_id`.
    var messageId: String { get }
    /// The id of the event this message descends from, sent as the AMQP `correlation_id`.
    var correlationId: String { get }
    /// The message body: the contract's JSON with Herald's conventions. Contracts written at
    /// high rates give their own faster writer; its bytes equal `HeraldJSON.encode(self)`.
    func wireJSON() throws -> Data
}

extension Contract {
    public func wireJSON() throws -> Data { try HeraldJSON.encode(self) }
}

/// The names of every contract, in one place.
public enum ContractName {
    public static let event = "herald.event.v1"
    public static let delivery = "herald.delivery.v1"
    public static let dispatch = "herald.dispatch.v1"
    public static let outcome = "herald.outcome.v1"
    public static let tokenRevoked = "herald.token-revoked.v1"
    public static let commandError = "herald.error.v1"
}
