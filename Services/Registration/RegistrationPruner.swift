import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Forgets processed event ids after the deduplication window, revocation audit rows and
/// delivery outcomes after theirs, once at start and then every `interval`.
public struct RegistrationPruner: Service {
    let store: any RegistrationStore
    let window: TimeInterval
    let auditWindow: TimeInterval
    public let outcomeWindow: TimeInterval
    let interval: Duration
    let logger: Logger

    public init(store: any RegistrationStore, window: TimeInterval = 24 * 3600, auditWindow: TimeInterval = 30 * 24 * 3600, outcomeWindow: TimeInterval = 7 * 24 * 3600, interval: Duration = .seconds(3600), logger: Logger) {
        self.store = store
        self.window = window
        self.auditWindow = auditWindow
        self.outcomeWindow = outcomeWindow
        self.interval = interval
        self.logger = logger
    }

    /// The pruner with the outcome retention `HERALD_OUTCOME_RETENTION_DAYS` sets (1 to 365,
    /// default 7): how long `GET /events/{id}` can tell what became of an event's deliveries.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment, store: any RegistrationStore, logger: Logger) throws -> RegistrationPruner {
        let days = try EnvironmentReader(environment).parse("HERALD_OUTCOME_RETENTION_DAYS", expected: "a whole number of days from 1 to 365") {
            Int($0).flatMap { (1...365).contains($0) ? $0 : nil }
        } ?? 7
        return RegistrationPruner(store: store, outcomeWindow: TimeInterval(days) * 24 * 3600, logger: logger)
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
