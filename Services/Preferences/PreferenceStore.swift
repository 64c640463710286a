import Foundation
import HeraldModel
import Synchronization

/// The preferences of every app, user, channel and device, kept in a `PreferenceStorage`
/// (SQLite or PostgreSQL) and mirrored in memory by a `PreferenceView`, so decisions need no
/// query.
///
/// Every write goes to the storage, then into the view, with the version the storage gave
/// it; the view keeps per key the newest version it applied. With several replicas on one
/// PostgreSQL database, each write is announced (`announce`), and every replica reads the
/// announced key again (`refresh`), so a change made through one replica filters on all of
/// them within moments.
public final class PreferenceStore: Sendable {
    private struct State {
        var view = PreferenceView()
        var versions: [PreferenceEntry.Key: Int64] = [:]
    }

    private let storage: any PreferenceStorage
    private let state = Mutex(State())
    private let announce: (@Sendable (PreferenceEntry.Key) async -> Void)?

    /// Loads the whole view from `storage`. `announce` tells the other replicas of a write.
    public init(storage: any PreferenceStorage, announce: (@Sendable (PreferenceEntry.Key) async -> Void)? = nil) async throws {
        self.storage = storage
        self.announce = announce
        try await reload()
    }

    /// The SQLite store in `directory` (one process per file, nothing to announce).
    public convenience init(directory: URL) async throws {
        try await self.init(storage: try SQLitePreferenceStorage(directory: directory))
    }

    // MARK: Deciding

    /// The decision for `delivery`, from memory.
    public func decide(_ delivery: Delivery, critical: Bool, optIn: Set<String> = []) -> FilterDecision {
        state.withLock { $0.view.decide(delivery, critical: critical, optIn: optIn) }
    }

    /// A copy of the whole view (for benchmarks and tests of the pure logic).
    public var snapshot: PreferenceView { state.withLock { $0.view } }

    // MARK: Reading

    public func network(app: String) -> Bool { state.withLock { $0.view.network(app: app) } }
    public func user(app: String, userId: String) -> UserPreferences { state.withLock { $0.view.user(app: app, userId: userId) } }
    public func channel(app: String, userId: String, channelId: String) -> Bool {
        state.withLock { $0.view.channel(app: app, userId: userId, channelId: channelId) }
    }
    public func configuration(app: String, deviceId: String) -> NotificationConfiguration {
        state.withLock { $0.view.configuration(app: app, deviceId: deviceId) }
    }

    // MARK: Writing

    public func setNetwork(app: String, enabled: Bool) async throws {
        try await write(PreferenceEntry(.network(app: app), .network(enabled: enabled)))
    }

    public func setUser(app: String, userId: String, _ preferences: UserPreferences) async throws {
        try await write(PreferenceEntry(.user(app: app, userId: userId), .user(preferences)))
    }

    public func setChannel(app: String, userId: String, channelId: String, enabled: Bool) async throws {
        try await write(PreferenceEntry(.channel(app: app, userId: userId, channelId: channelId), .channel(enabled: enabled)))
    }

    /// Replaces a device's configuration.
    public func setConfiguration(app: String, deviceId: String, _ configuration: NotificationConfiguration) async throws {
        _ = try await updateConfiguration(app: app, deviceId: deviceId) { $0 = configuration }
    }

    /// Changes a device's configuration as stored (read, change and write as one step, so
    /// concurrent changes of one device, on any replica, do not lose each other) and returns
    /// the result.
    public func updateConfiguration(app: String, deviceId: String, _ change: @escaping @Sendable (inout NotificationConfiguration) throws -> Void) async throws -> NotificationConfiguration {
        let stored = try await storage.updateConfiguration(app: app, deviceId: deviceId, change)
        apply(stored)
        await announce?(stored.entry.key)
        guard case .device(let configuration) = stored.entry.value else { return NotificationConfiguration() }
        return configuration
    }

    private func write(_ entry: PreferenceEntry) async throws {
        apply(try await storage.save(entry))
        await announce?(entry.key)
    }

    // MARK: Keeping up with other replicas

    /// Reads `key` again from the storage: another replica changed it.
    public func refresh(_ key: PreferenceEntry.Key) async throws {
        if let stored = try await storage.load(key) { apply(stored) }
    }

    /// Reads every entry again (at start, and now and then in case an announcement was missed).
    public func reload() async throws {
        for stored in try await storage.loadAll() { apply(stored) }
    }

    /// Sets `stored` in the view unless the view has a newer version of its key.
    private func apply(_ stored: VersionedEntry) {
        state.withLock { state in
            guard stored.version >= state.versions[stored.entry.key] ?? .min else { return }
            stored.entry.apply(to: &state.view)
            state.versions[stored.entry.key] = stored.version
        }
    }
}
