import Foundation

/// One event as `GET /events` lists it: what it was, when Herald accepted it, how many
/// deliveries it fanned out to and where each stands. Registration logs it when it fans the
/// event out and counts its outcomes as they are recorded.
public struct EventSummary: Codable, Sendable, Hashable {
    public var eventId: String
    public var source: String
    public var kind: String
    public var acceptedAt: Date
    /// How many outcomes the event awaits: one per delivery (one for an event without an
    /// audience, whose outcome is `filtered`).
    public var deliveries: Int
    public var status: EventProgress
    public var counts: EventCounts
    /// When the last of its deliveries got a final outcome.
    public var completedAt: Date?
    /// The W3C trace id of the event's trace, when tracing was on and sampled it.
    public var traceId: String?

    public init(eventId: String, source: String, kind: String, acceptedAt: Date, deliveries: Int, counts: EventCounts, completedAt: Date? = nil, traceId: String? = nil) {
        self.eventId = eventId
        self.source = source
        self.kind = kind
        self.acceptedAt = acceptedAt
        self.deliveries = deliveries
        self.counts = counts
        self.status = counts.progress(deliveries: deliveries)
        self.completedAt = completedAt
        self.traceId = traceId
    }
}

/// Where an event stands as a whole.
public enum EventProgress: String, Codable, Sendable, Hashable, CaseIterable {
    /// A delivery has no final outcome yet (none, or `retrying`).
    case pending
    /// Every delivery that was not filtered was delivered (at least one).
    case delivered
    /// Some were delivered, some failed, expired or were revoked.
    case partial
    /// None was delivered, and not all were filtered.
    case failed
    /// Every delivery was filtered (a preference, or no audience).
    case filtered
}

/// How many of an event's deliveries have each latest outcome.
public struct EventCounts: Codable, Sendable, Hashable {
    public var delivered = 0
    public var failed = 0
    public var expired = 0
    public var revoked = 0
    public var filtered = 0
    public var retrying = 0

    public init() {}

    /// The counts of `(status, count)` pairs, as a store groups them.
    public init(_ statuses: [(OutcomeStatus, Int)]) {
        for (status, count) in statuses {
            switch status {
            case .delivered: delivered += count
            case .failed: failed += count
            case .expired: expired += count
            case .revoked: revoked += count
            case .filtered: filtered += count
            case .retrying: retrying += count
            }
        }
    }

    /// Deliveries whose outcome is final (all but `retrying`).
    public var final: Int { delivered + failed + expired + revoked + filtered }

    /// Where an event of `deliveries` deliveries with these counts stands.
    public func progress(deliveries: Int) -> EventProgress {
        if final < deliveries { return .pending }
        if filtered == final { return .filtered }
        let lost = failed + expired + revoked
        if delivered == 0 { return .failed }
        return lost == 0 ? .delivered : .partial
    }
}

/// An event Registration fans out, as its log keeps it.
public struct LoggedEvent: Sendable, Hashable {
    public var app: String
    public var eventId: String
    public var source: String
    public var kind: String
    public var acceptedAt: Date
    public var deliveries: Int
    /// The event's trace (`EventSummary.traceId`).
    public var traceId: String?

    public init(app: String, eventId: String, source: String, kind: String, acceptedAt: Date, deliveries: Int, traceId: String? = nil) {
        self.app = app
        self.eventId = eventId
        self.source = source
        self.kind = kind
        // Milliseconds, as both stores keep them exactly (a list's cursor compares them).
        self.acceptedAt = Date(timeIntervalSince1970: (acceptedAt.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        self.deliveries = deliveries
        self.traceId = traceId
    }
}

/// An event whose last delivery got its final outcome in a batch of outcomes: the
/// `event.completed` callback's subject.
public struct CompletedEvent: Sendable, Hashable {
    public var app: String
    public var summary: EventSummary

    public init(app: String, summary: EventSummary) {
        self.app = app
        self.summary = summary
    }
}
