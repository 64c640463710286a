import Foundation
import HeraldModel
import Messaging
import ServiceKit

/// The emissions of Herald's stages: contracts, with the wire conventions.
extension Emission {
    /// `contract` to `exchange` under `routingKey`. Mandatory: a message no queue takes
    /// fails the publish (and the input is retried) instead of vanishing.
    public static func publish<C: Contract>(_ contract: C, to exchange: ExchangeSpec, routingKey: String) throws -> Emission {
        Emission(try OutgoingMessage(contract: contract, exchange: exchange.name, routingKey: routingKey, mandatory: true))
    }

    /// An outcome to `herald.outcomes` under its status. Not mandatory: nobody has to listen.
    public static func outcome(_ outcome: Outcome, to exchange: ExchangeSpec = HeraldTopology.Exchange.outcomes) throws -> Emission {
        Emission(try OutgoingMessage(contract: outcome, exchange: exchange.name, routingKey: outcome.routingKey))
    }

    /// This emission with a per-message TTL that ends at `date` (rounded up to the
    /// millisecond, 1 to four weeks): past it the broker dead-letters the message as `expired`.
    public func expiring(at date: Date?, now: Date) -> Emission {
        guard let date else { return self }
        var copy = self
        let milliseconds = (date.timeIntervalSince(now) * 1000).rounded(.up)
        let longest = Double(DeliveryOptions.maximumTTL) * 1000
        copy.message.properties.expiration = String(Int64(min(max(milliseconds, 1), longest)))
        return copy
    }
}
