import Foundation
import HeraldModel
import Messaging
import ServiceKit

/// A contract read and checked, ready to publish: its default exchange and routing key (where
/// Herald's own services publish it), and numbered copies for load.
public struct PreparedContract: Sendable {
    public let contractName: String
    public let messageId: String
    /// Where Herald publishes this contract: the exchange and the routing key.
    public let route: (exchange: String, routingKey: String)
    private let make: @Sendable (Int?) throws -> OutgoingMessage.Body

    init<C: Contract>(_ contract: C, route: (C) -> (String, String), copy: @escaping @Sendable (inout C, Int) -> Void) throws {
        contractName = C.contractName
        messageId = contract.messageId
        self.route = route(contract)
        make = { number in
            var copied = contract
            if let number { copy(&copied, number) }
            return OutgoingMessage.Body(
                data: try copied.wireJSON(),
                properties: .contract(C.contractName, messageId: copied.messageId, correlationId: copied.correlationId))
        }
    }

    /// The message to publish to `exchange` with `routingKey`; with `copy`, the copy with that
    /// number, whose id ends in `-<copy>` (an event id, a delivery id) so that each copy is a
    /// message of its own and not a repeat Herald would drop.
    public func message(exchange: String, routingKey: String, copy: Int? = nil, expiration: Int? = nil) throws(ControlError) -> OutgoingMessage {
        let body: OutgoingMessage.Body
        do {
            body = try make(copy)
        } catch {
            throw ControlError(.invalidInput, "cannot write the \(contractName): \(error)")
        }
        var properties = body.properties
        if let expiration { properties.expiration = String(expiration) }
        // Mandatory: a routing key no queue is bound to fails the publish instead of vanishing.
        return OutgoingMessage(exchange: exchange, routingKey: routingKey, body: body.data, properties: properties, mandatory: true)
    }
}

extension OutgoingMessage {
    /// A body with its properties, before it has a destination.
    struct Body: Sendable {
        var data: Data
        var properties: MessageProperties
    }
}
