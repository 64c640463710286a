import Foundation

/// What `GET /stats` answers: an app's counts over a window, in total, per minute and per
/// provider, for an overview's chart. Outcomes count by their latest status and time.
public struct DeliveryStats: Codable, Sendable, Hashable {
    public var since: Date
    public var until: Date
    public var totals: StatCounts
    /// Every minute of the window, oldest first (zeros included).
    public var minutes: [Minute]
    /// Each provider that had an outcome in the window, with its minutes.
    public var providers: [Provider]

    public init(since: Date, until: Date, totals: StatCounts, minutes: [Minute], providers: [Provider]) {
        self.since = since
        self.until = until
        self.totals = totals
        self.minutes = minutes
        self.providers = providers
    }

    public struct Minute: Codable, Sendable, Hashable {
        public var minute: Date
        public var counts: StatCounts
        public init(minute: Date, counts: StatCounts) {
            self.minute = minute
            self.counts = counts
        }
    }

    public struct Provider: Codable, Sendable, Hashable {
        public var platform: String
        public var totals: StatCounts
        public var minutes: [Minute]
        public init(platform: String, totals: StatCounts, minutes: [Minute]) {
            self.platform = platform
            self.totals = totals
            self.minutes = minutes
        }
    }
}

/// Counts of one minute, one provider or a whole window.
public struct StatCounts: Codable, Sendable, Hashable {
    /// Events accepted (not per provider: an event is not yet any provider's).
    public var accepted = 0
    public var delivered = 0
    public var failed = 0
    public var filtered = 0
    public var expired = 0
    public var revoked = 0

    public init() {}

    public mutating func add(_ status: OutcomeStatus, _ count: Int) {
        switch status {
        case .delivered: delivered += count
        case .failed: failed += count
        case .filtered: filtered += count
        case .expired: expired += count
        case .revoked: revoked += count
        case .retrying: break
        }
    }
}

extension DeliveryStats {
    /// The stats of a window from a store's rows: events accepted per minute, and outcomes
    /// per minute, provider and status (`minute` the start of the minute).
    public init(
        since: Date, until: Date, accepted: [(minute: Date, count: Int)], outcomes: [(minute: Date, platform: String?, status: OutcomeStatus, count: Int)]
    ) {
        let first = (since.timeIntervalSince1970 / 60).rounded(.down)
        let last = ((until.timeIntervalSince1970 - 0.001) / 60).rounded(.down)
        let count = max(0, Int(last - first) + 1)
        func index(_ minute: Date) -> Int? {
            let i = Int((minute.timeIntervalSince1970 / 60).rounded(.down) - first)
            return (0..<count).contains(i) ? i : nil
        }
        var totals = StatCounts()
        var minutes = [StatCounts](repeating: StatCounts(), count: count)
        var providers: [String: (totals: StatCounts, minutes: [StatCounts])] = [:]
        for row in accepted {
            totals.accepted += row.count
            if let i = index(row.minute) { minutes[i].accepted += row.count }
        }
        for row in outcomes {
            totals.add(row.status, row.count)
            let platform = row.platform ?? "unknown"
            var provider = providers[platform] ?? (StatCounts(), [StatCounts](repeating: StatCounts(), count: count))
            provider.totals.add(row.status, row.count)
            if let i = index(row.minute) {
                minutes[i].add(row.status, row.count)
                provider.minutes[i].add(row.status, row.count)
            }
            providers[platform] = provider
        }
        let start = { (i: Int) in Date(timeIntervalSince1970: (first + Double(i)) * 60) }
        self.init(
            since: since, until: until, totals: totals,
            minutes: minutes.enumerated().map { Minute(minute: start($0.offset), counts: $0.element) },
            providers: providers.keys.sorted().map { platform in
                let provider = providers[platform]!
                return Provider(platform: platform, totals: provider.totals, minutes: provider.minutes.enumerated().map { Minute(minute: start($0.offset), counts: $0.element) })
            })
    }
}
