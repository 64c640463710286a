import Foundation
import HeraldDomain
import HeraldModel
import Logging
import Messaging
import Metrics
import ServiceKit
import ServiceLifecycle

/// How replicas of Preferences on one database keep their views equal: each write is
/// announced on `herald.control` (routing key `preferences.changed`, the changed key as
/// JSON), every replica reads the announcements from a queue of its own (exclusive, gone
/// with the replica) and reads that key again from the database. A full reload every few
/// minutes covers announcements missed while a replica was disconnected.
public struct PreferenceChanges: Service {
    public static let routingKey = "preferences.changed"

    let store: PreferenceStore
    let runtime: ServiceRuntime
    let reloadInterval: Duration

    public init(store: PreferenceStore, runtime: ServiceRuntime, reloadInterval: Duration = .seconds(300)) {
        self.store = store
        self.runtime = runtime
        self.reloadInterval = reloadInterval
    }

    /// Tells the other replicas that `key` changed (best effort: a replica that misses it
    /// catches up at its next full reload).
    public static func announce(_ key: PreferenceEntry.Key, runtime: ServiceRuntime) async {
        if let error = await ControlNews.publish(key, routingKey: routingKey, type: "herald.preferences-changed.v1", runtime: runtime) {
            runtime.logger.warning("could not announce a preference change", metadata: ["error": "\(error)"])
        }
    }

    public func run() async throws {
        let consumer = ControlNews.consumer(
            prefix: "preferences.changes", routingKey: Self.routingKey, connection: "preference-changes", runtime: runtime, prefetch: 256)
        let refreshed = Counter(label: "herald_preferences_refreshed_total")
        let store = store
        let logger = runtime.logger
        let interval = reloadInterval
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard !Task.isCancelled else { return }
                        do { try await store.reload() } catch {
                            logger.warning("could not reload the preferences", metadata: ["error": "\(String(reflecting: error))"])
                        }
                    }
                }
                for await message in consumer {
                    if let key = try? JSONDecoder().decode(PreferenceEntry.Key.self, from: message.body) {
                        do {
                            try await store.refresh(key)
                            refreshed.increment()
                        } catch {
                            logger.warning("could not refresh a changed preference", metadata: ["error": "\(String(reflecting: error))"])
                        }
                    }
                    message.ack()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
    }
}
