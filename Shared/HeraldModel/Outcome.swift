import Foundation

/// `herald.outcome.v1`: what became of one delivery. Published to `herald.outcomes` with the
/// status as routing key.
public struct Outcome: Contract, Hashable {
    public static let contractName = ContractName.outcome

    public var deliveryId: String
    public var eventId: String
    public var app: String
    public var status: OutcomeStatus
    /// Why, in words an operator understands (e.g. `filtered by channel`, `UNREGISTERED`).
    public var reason: String?
    /// The provider's own error code, when a provider answered.
    public var providerCode: String?
    public var at: Date
    /// The provider the delivery went (or was to go) to, when the stage that wrote the
    /// outcome knew it: what `GET /stats` counts per provider.
    public var platform: Platform?
    /// The device the delivery was for, when known: a device's recent deliveries and last
    /// outcome.
    public var deviceId: String?

    public var messageId: String { "\(deliveryId):\(status.rawValue)" }
    public var correlationId: String { eventId }
    public var routingKey: String { status.rawValue }

    public init(
        deliveryId: String, eventId: String, app: String, status: OutcomeStatus,
        reason: String? = nil, providerCode: String? = nil, at: Date, platform: Platform? = nil, deviceId: String? = nil
    ) {
        self.deliveryId = deliveryId
        self.eventId = eventId
        self.app = app
        self.status = status
        self.reason = reason
        self.providerCode = providerCode
        self.at = at
        self.platform = platform
        self.deviceId = deviceId
    }

    /// The outcome of `delivery`, for the stages before dispatch.
    public init(delivery: Delivery, status: OutcomeStatus, reason: String? = nil, at: Date) {
        self.init(
            deliveryId: delivery.deliveryId, eventId: delivery.eventId, app: delivery.app, status: status, reason: reason, at: at,
            platform: delivery.device.platform, deviceId: delivery.device.id)
    }

    /// The outcome of a dispatch request, for the dispatchers.
    public init(request: DispatchRequest, status: OutcomeStatus, reason: String? = nil, providerCode: String? = nil, at: Date) {
        self.init(
            deliveryId: request.deliveryId, eventId: request.eventId, app: request.app, status: status,
            reason: reason, providerCode: providerCode, at: at, platform: request.platform, deviceId: request.deviceId.isEmpty ? nil : request.deviceId)
    }
}

public enum OutcomeStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case delivered, filtered, expired, failed, revoked, retrying
}
