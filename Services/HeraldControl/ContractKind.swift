import Foundation
import HeraldDomain
import HeraldModel
import Messaging
import ServiceKit

/// A Herald contract `heraldctl publish` can put on the broker, by its short name (`event`)
/// or its full one (`herald.event.v1`).
public enum ContractKind: String, Sendable, CaseIterable {
    case event
    case delivery
    case dispatch
    case outcome
    case tokenRevoked = "token-revoked"

    /// Reads `event`, `herald.event.v1`, and so on.
    public init(named name: String) throws(ControlError) {
        if let kind = ContractKind(rawValue: name) ?? ContractKind.allCases.first(where: { $0.contractName == name }) {
            self = kind
            return
        }
        let known = ContractKind.allCases.map { "\($0.rawValue) (\($0.contractName))" }.joined(separator: ", ")
        throw ControlError(.invalidInput, "unknown contract \"\(name)\"; one of \(known)")
    }

    public var contractName: String {
        switch self {
        case .event: NotificationEvent.contractName
        case .delivery: Delivery.contractName
        case .dispatch: DispatchRequest.contractName
        case .outcome: Outcome.contractName
        case .tokenRevoked: TokenRevoked.contractName
        }
    }

    /// Reads `body` as this contract, as the consuming stage would: an invalid body is
    /// refused naming the field and the reason, and nothing is sent.
    public func prepare(_ body: Data) throws(ControlError) -> PreparedContract {
        do {
            switch self {
            case .event:
                return try PreparedContract(HeraldJSON.decode(NotificationEvent.self, from: body),
                                            route: { (HeraldTopology.Exchange.events.name, $0.routingKey) },
                                            copy: { event, n in event.id += "-\(n)" })
            case .delivery:
                return try PreparedContract(HeraldJSON.decode(Delivery.self, from: body),
                                            route: { _ in (HeraldTopology.Exchange.deliveries.name, HeraldTopology.RoutingKey.resolved) },
                                            copy: { delivery, n in delivery.deliveryId += "-\(n)" })
            case .dispatch:
                return try PreparedContract(HeraldJSON.decode(DispatchRequest.self, from: body),
                                            route: { (HeraldTopology.Exchange.dispatch.name, HeraldTopology.RoutingKey.dispatch($0.platform)) },
                                            copy: { request, n in request.deliveryId += "-\(n)" })
            case .outcome:
                return try PreparedContract(HeraldJSON.decode(Outcome.self, from: body),
                                            route: { (HeraldTopology.Exchange.outcomes.name, $0.routingKey) },
                                            copy: { outcome, n in outcome.deliveryId += "-\(n)" })
            case .tokenRevoked:
                return try PreparedContract(HeraldJSON.decode(TokenRevoked.self, from: body),
                                            route: { _ in (HeraldTopology.Exchange.control.name, HeraldTopology.RoutingKey.tokenRevoked) },
                                            copy: { _, _ in })
            }
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(.invalidInput, "not a valid \(contractName): \(HeraldJSON.describe(error))")
        }
    }
}
