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

// What a trace shows of each contract: ids, app, source, kind, platform (never a token, a
// key or a payload).
extension NotificationEvent: StageInput {
    public var traceAttributes: [String: String] {
        ["herald.event_id": id, "herald.app": app, "herald.source": source.rawValue, "herald.kind": kind]
    }
}

extension Delivery: StageInput {
    public var traceAttributes: [String: String] {
        ["herald.delivery_id": deliveryId, "herald.event_id": eventId, "herald.app": app, "herald.source": source.rawValue,
         "herald.kind": kind, "herald.platform": device.platform.rawValue]
    }
}

extension DispatchRequest: StageInput {
    public var traceAttributes: [String: String] {
        ["herald.delivery_id": deliveryId, "herald.event_id": eventId, "herald.app": app, "herald.kind": kind,
         "herald.platform": platform.rawValue, "herald.attempt": String(attempt)]
    }
}

extension Outcome: StageInput {
    public var traceAttributes: [String: String] {
        var attributes = ["herald.delivery_id": deliveryId, "herald.event_id": eventId, "herald.app": app, "herald.outcome": status.rawValue]
        attributes["herald.platform"] = platform?.rawValue
        attributes["herald.provider_code"] = providerCode
        return attributes
    }
}

extension TokenRevoked: StageInput {
    public var traceAttributes: [String: String] {
        var attributes = ["herald.app": app, "herald.platform": platform.rawValue]
        attributes["herald.delivery_id"] = deliveryId
        attributes["herald.event_id"] = eventId
        return attributes
    }
}
