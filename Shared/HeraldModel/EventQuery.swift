import Foundation

/// What `GET /events` asks for: filters, most recent first, a page at a time.
public struct EventQuery: Codable, Sendable, Hashable {
    /// One event only: how `GET /events/{id}` reads the event's summary.
    public var eventId: String?
    public var source: String?
    public var kind: String?
    public var status: EventProgress?
    /// Accepted at or after.
    public var since: Date?
    /// Accepted before.
    public var until: Date?
    /// Where the previous page ended (its `nextCursor`).
    public var cursor: String?
    public var limit: Int

    public init(
        eventId: String? = nil, source: String? = nil, kind: String? = nil, status: EventProgress? = nil, since: Date? = nil, until: Date? = nil,
        cursor: String? = nil, limit: Int = ListLimits.defaultPage
    ) {
        self.eventId = eventId
        self.source = source
        self.kind = kind
        self.status = status
        self.since = since
        self.until = until
        self.cursor = cursor
        self.limit = limit
    }
}

/// A page of events; `nextCursor` asks for the next, absent on the last page.
public struct EventPage: Codable, Sendable, Hashable {
    public var events: [EventSummary]
    public var nextCursor: String?

    public init(events: [EventSummary], nextCursor: String?) {
        self.events = events
        self.nextCursor = nextCursor
    }
}

/// What `GET /devices` asks for: filters, most recently registered first, a page at a time.
public struct DeviceQuery: Codable, Sendable, Hashable {
    public var userId: String?
    public var platform: Platform?
    /// Registered (first) at or after.
    public var registeredSince: Date?
    /// The status of the device's latest outcome.
    public var lastOutcome: OutcomeStatus?
    /// The token ends with this (a console's search by what a user can read off a phone).
    public var tokenSuffix: String?
    public var cursor: String?
    public var limit: Int

    public init(
        userId: String? = nil, platform: Platform? = nil, registeredSince: Date? = nil, lastOutcome: OutcomeStatus? = nil,
        tokenSuffix: String? = nil, cursor: String? = nil, limit: Int = ListLimits.defaultPage
    ) {
        self.userId = userId
        self.platform = platform
        self.registeredSince = registeredSince
        self.lastOutcome = lastOutcome
        self.tokenSuffix = tokenSuffix
        self.cursor = cursor
        self.limit = limit
    }
}

/// A page of devices; `nextCursor` asks for the next, absent on the last page.
public struct DevicePage: Codable, Sendable, Hashable {
    public var devices: [DeviceRecord]
    public var nextCursor: String?

    public init(devices: [DeviceRecord], nextCursor: String?) {
        self.devices = devices
        self.nextCursor = nextCursor
    }
}

/// The bounds the gateway and Registration both hold a list or stats query to.
public enum ListLimits {
    /// The page a list answers with when the query names none.
    public static let defaultPage = 50
    /// The largest page a list answers with.
    public static let largestPage = 200
    /// The longest window `GET /stats` counts.
    public static let longestStatsWindow: TimeInterval = 24 * 3600
}
