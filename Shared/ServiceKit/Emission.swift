import HeraldModel
import Messaging

/// One message a stage emits for an input; the runner publishes them all with confirms
/// before it acknowledges the input.
public struct Emission: Sendable {
    public var message: OutgoingMessage

    public init(_ message: OutgoingMessage) {
        self.message = message
    }

    /// `contract` to `exchange` under `routingKey`. Mandatory: a message no queue takes
    /// fails the publish (and the input is retried) instead of vanishing.
    public static func publish<C: Contract>(_ contract: C, to exchange: ExchangeSpec, routingKey: String) throws -> Emission {
        Emission(try OutgoingMessage(contract: contract, exchange: exchange.name, routingKey: routingKey, mandatory: true))
    }

    /// An outcome to `herald.outcomes` under its status. Not mandatory: nobody has to listen.
    public static func outcome(_ outcome: Outcome, to exchange: ExchangeSpec = HeraldTopology.Exchange.outcomes) throws -> Emission {
        Emission(try OutgoingMessage(contract: outcome, exchange: exchange.name, routingKey: outcome.routingKey))
    }
}
