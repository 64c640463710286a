import Foundation
import HeraldModel

extension OutgoingMessage {
    /// A persistent JSON message carrying `contract`, with the AMQP properties of the wire
    /// conventions: `type` = contract name, `message_id` = its id, `correlation_id` = the
    /// event id, `timestamp` = now.
    public init<C: Contract>(
        contract: C, exchange: String, routingKey: String,
        headers: [String: HeaderValue] = [:], mandatory: Bool = false
    ) throws {
        self.init(
            exchange: exchange, routingKey: routingKey, body: try contract.wireJSON(),
            properties: .contract(C.contractName, messageId: contract.messageId, correlationId: contract.correlationId, headers: headers),
            mandatory: mandatory)
    }
}

extension MessageProperties {
    /// The properties of a contract message: persistent JSON, `type` = the contract name,
    /// `message_id`, `correlation_id`, `timestamp` = now. For bodies encoded ahead of time.
    public static func contract(_ name: String, messageId: String, correlationId: String, headers: [String: HeaderValue] = [:]) -> MessageProperties {
        MessageProperties(
            contentType: "application/json", type: name, messageId: messageId, correlationId: correlationId,
            timestamp: Date(), persistent: true, headers: headers)
    }
}

extension ReceivedMessage {
    /// Decodes the body as `C`, checking the `type` property when the sender set one.
    /// Throws `ContractError` saying precisely what is wrong.
    public func decode<C: Contract>(_ type: C.Type) throws -> C {
        if let sent = properties.type, sent != C.contractName {
            throw ContractError(.wrongType, "expected a \(C.contractName) message, got type \"\(sent)\"")
        }
        do {
            return try HeraldJSON.decode(C.self, from: body)
        } catch {
            throw ContractError(.malformed, "\(C.contractName): \(HeraldJSON.describe(error))")
        }
    }
}

/// Why a message could not be turned into a contract.
public struct ContractError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case wrongType
        case malformed
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
