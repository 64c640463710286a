import Foundation
import Logging
import Metrics
import ServiceKit
import ServiceLifecycle

/// Forgets processed event ids after the idempotency window (a generation at a time,
/// `IdempotencyWindow`), revocation audit rows and delivery outcomes after theirs, once at
/// start and then every `interval`; with `maxBytes`, also keeps the store under that size by
/// forgetting the oldest history first (`enforceCap`).
public struct RegistrationPruner: Service {
    let store: any RegistrationStore
    /// How long a repeated event id is recognised (at least this, at most twice).
    public let window: TimeInterval
    let auditWindow: TimeInterval
    public let outcomeWindow: TimeInterval
    /// A sixtieth of the shorter of the two windows, from a minute to an hour: what is kept
    /// overshoots its window by at most that much. A minute with `maxBytes`.
    public let interval: Duration
    /// The most the store may take (`HERALD_EVENT_LOG_MAX_BYTES`); nil: no cap.
    public let maxBytes: Int?
    let logger: Logger
    let trimmed = Counter(label: "herald_event_log_trimmed_total")
    let storeSize = Gauge(label: "herald_registration_store_bytes")

    public init(
        store: any RegistrationStore, window: TimeInterval = 24 * 3600, auditWindow: TimeInterval = 30 * 24 * 3600,
        outcomeWindow: TimeInterval = 7 * 24 * 3600, maxBytes: Int? = nil, interval: Duration? = nil, logger: Logger
    ) {
        self.store = store
        self.window = window
        self.auditWindow = auditWindow
        self.outcomeWindow = outcomeWindow
        self.maxBytes = maxBytes
        self.interval = interval ?? .seconds(maxBytes != nil ? 60 : Int(min(3600, max(60, min(window, outcomeWindow) / 60))))
        self.logger = logger
    }

    /// The pruner the environment configures:
    /// - `HERALD_OUTCOME_RETENTION_DAYS` (1 to 365, default 7) or `HERALD_OUTCOME_RETENTION_HOURS`
    ///   (1 to 8,760), not both: how long outcomes and the event log are kept, so how far back
    ///   `GET /events/{id}` can tell what became of an event's deliveries;
    /// - `HERALD_IDEMPOTENCY_WINDOW_HOURS` (1 to 8,760, default 24): how long a repeated event
    ///   id is recognised and not fanned out again;
    /// - `HERALD_EVENT_LOG_MAX_BYTES` (bytes, or with `K`, `M`, `G` or `T`): the most the store
    ///   may take; past it the oldest history goes first, checked every minute.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment, store: any RegistrationStore, logger: Logger) throws -> RegistrationPruner {
        let reader = EnvironmentReader(environment)
        func hours(_ key: String) throws -> Int? {
            try reader.parse(key, expected: "a whole number of hours from 1 to 8760") { Int($0).flatMap { (1...8760).contains($0) ? $0 : nil } }
        }
        let days = try reader.parse("HERALD_OUTCOME_RETENTION_DAYS", expected: "a whole number of days from 1 to 365") {
            Int($0).flatMap { (1...365).contains($0) ? $0 : nil }
        }
        let retentionHours = try hours("HERALD_OUTCOME_RETENTION_HOURS")
        if retentionHours != nil && days != nil {
            throw ConfigurationError(
                .invalidValue, setting: "HERALD_OUTCOME_RETENTION_HOURS", "set HERALD_OUTCOME_RETENTION_HOURS or HERALD_OUTCOME_RETENTION_DAYS, not both")
        }
        let retention = TimeInterval(retentionHours ?? (days ?? 7) * 24) * 3600
        let window = TimeInterval(try hours("HERALD_IDEMPOTENCY_WINDOW_HOURS") ?? 24) * 3600
        let maxBytes = try reader.parse("HERALD_EVENT_LOG_MAX_BYTES", expected: "a size in bytes, or with K, M, G or T (5G)", Self.bytes)
        return RegistrationPruner(store: store, window: window, outcomeWindow: retention, maxBytes: maxBytes, logger: logger)
    }

    /// A size: a whole number of bytes, or of kibi-, mebi-, gibi- or tebibytes (`K`, `M`, `G`, `T`).
    static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard let last = trimmed.last else { return nil }
        let shift = units[last] ?? 0
        let digits = units[last] == nil ? trimmed : String(trimmed.dropLast())
        guard let number = Int(digits), number > 0, number <= Int.max >> shift else { return nil }
        return number << shift
    }

    /// Keeps the store under `maxBytes`: over it, forgets the events (and outcomes) older
    /// than the share of the kept history the cap allows, less a tenth, whatever the
    /// retention says; counts them (`herald_event_log_trimmed_total`) and says so in a log
    /// line. Returns how many logged events went.
    @discardableResult
    public func enforceCap(now: Date = Date()) async throws -> Int {
        guard let maxBytes else { return 0 }
        let size = try await store.storedBytes()
        storeSize.record(size)
        guard size > maxBytes, let oldest = try await store.oldestAcceptedAt() else { return 0 }
        let kept = max(0, now.timeIntervalSince(oldest)) * Double(maxBytes) / Double(size) * 0.9
        let pruned = try await store.prune(now: now, window: window, auditWindow: auditWindow, outcomeWindow: min(outcomeWindow, kept))
        trimmed.increment(by: pruned.logged)
        logger.warning("the store is over HERALD_EVENT_LOG_MAX_BYTES: the oldest history went", metadata: [
            "bytes": "\(size)", "maxBytes": "\(maxBytes)", "keptSeconds": "\(Int(kept))", "events": "\(pruned.logged)", "outcomes": "\(pruned.outcomes)",
        ])
        return pruned.logged
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let pruned = try await store.prune(window: window, auditWindow: auditWindow, outcomeWindow: outcomeWindow)
                    logger.info("pruned", metadata: [
                        "events": "\(pruned.events)", "revocations": "\(pruned.revocations)", "outcomes": "\(pruned.outcomes)", "logged": "\(pruned.logged)",
                    ])
                    try await enforceCap()
                } catch {
                    logger.error("pruning failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
