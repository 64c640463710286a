import Foundation
import HeraldModel
import Messaging
import ServiceKit

/// A contract is what a stage consumes: decoded with its type checked (`decodeAll`), and
/// written back alone with the contract's properties.
extension StageInput where Self: Contract {
    public static func inputs(in message: ReceivedMessage) throws -> [Self] {
        try message.decodeAll(Self.self)
    }

    public func message(headers: [String: HeaderValue]) throws -> (body: Data, properties: MessageProperties) {
        (try wireJSON(), .contract(Self.contractName, messageId: messageId, correlationId: correlationId, headers: headers))
    }
}

extension NotificationEvent: StageInput {}
extension Delivery: StageInput {}
extension DispatchRequest: StageInput {}
extension Outcome: StageInput {}
extension TokenRevoked: StageInput {}
