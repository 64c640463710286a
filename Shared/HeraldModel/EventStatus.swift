import Foundation

/// What became of an event's deliveries, as Registration last heard from the outcomes:
/// the answer to `GET /v1/apps/{app}/events/{eventId}`.
public struct EventStatus: Codable, Sendable, Hashable {
    public var eventId: String
    /// Whether Registration resolved the event's audience (within its deduplication window).
    public var resolved: Bool
    /// The latest outcome of each delivery, by delivery id.
    public var deliveries: [DeliveryStatus]
    /// The event as a whole, from the event log: its status and how many outcomes it awaits
    /// (so a reader knows an empty or short list of deliveries is not the end).
    public var summary: EventSummary?

    public init(eventId: String, resolved: Bool, deliveries: [DeliveryStatus], summary: EventSummary? = nil) {
        self.eventId = eventId
        self.resolved = resolved
        self.deliveries = deliveries
        self.summary = summary
    }
}

/// The latest outcome of one delivery.
public struct DeliveryStatus: Codable, Sendable, Hashable {
    public var deliveryId: String
    public var status: OutcomeStatus
    public var reason: String?
    public var providerCode: String?
    public var at: Date
    /// How many outcomes arrived for this delivery (retries included).
    public var updates: Int

    public init(deliveryId: String, status: OutcomeStatus, reason: String? = nil, providerCode: String? = nil, at: Date, updates: Int = 1) {
        self.deliveryId = deliveryId
        self.status = status
        self.reason = reason
        self.providerCode = providerCode
        self.at = at
        self.updates = updates
    }
}
