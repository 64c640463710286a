import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Forgets processed event ids after the idempotency window (a generation at a time,
/// `IdempotencyWindow`), revocation audit rows and delivery outcomes after theirs, once at
/// start and then every `interval`.
public struct RegistrationPruner: Service {
    let store: any RegistrationStore
    /// How long a repeated event id is recognised (at least this, at most twice).
    public let window: TimeInterval
    let auditWindow: TimeInterval
    public let outcomeWindow: TimeInterval
    /// A sixtieth of the shorter of the two windows, from a minute to an hour: what is kept
    /// overshoots its window by at most that much.
    public let interval: Duration
    let logger: Logger

    public init(
        store: any RegistrationStore, window: TimeInterval = 24 * 3600, auditWindow: TimeInterval = 30 * 24 * 3600,
        outcomeWindow: TimeInterval = 7 * 24 * 3600, interval: Duration? = nil, logger: Logger
    ) {
        self.store = store
        self.window = window
        self.auditWindow = auditWindow
        self.outcomeWindow = outcomeWindow
        self.interval = interval ?? .seconds(Int(min(3600, max(60, min(window, outcomeWindow) / 60))))
        self.logger = logger
    }

    /// The pruner the environment configures:
    /// - `HERALD_OUTCOME_RETENTION_DAYS` (1 to 365, default 7) or `HERALD_OUTCOME_RETENTION_HOURS`
    ///   (1 to 8,760), not both: how long outcomes and the event log are kept, so how far back
    ///   `GET /events/{id}` can tell what became of an event's deliveries;
    /// - `HERALD_IDEMPOTENCY_WINDOW_HOURS` (1 to 8,760, default 24): how long a repeated event
    ///   id is recognised and not fanned out again.
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
        return RegistrationPruner(store: store, window: window, outcomeWindow: retention, logger: logger)
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let pruned = try await store.prune(window: window, auditWindow: auditWindow, outcomeWindow: outcomeWindow)
                    logger.info("pruned", metadata: ["events": "\(pruned.events)", "revocations": "\(pruned.revocations)", "outcomes": "\(pruned.outcomes)"])
                } catch {
                    logger.error("pruning failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
