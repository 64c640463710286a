import Foundation
import GRDB
import HeraldModel
import HeraldStorage
import Synchronization

/// The preferences of every app, user, channel and device: SQLite through GRDB (WAL,
/// migrations) under the data directory, mirrored in memory by a `PreferenceView`.
///
/// Every write commits to SQLite and then updates the view, one write at a time, so the view
/// always equals the database and decisions need no SQL. The view is per process: run one
/// `herald-preferences` per store (the database file is not shared between instances).
public final class PreferenceStore: Sendable {
    public static let fileName = "preferences.sqlite"

    private let database: DatabasePool
    private let view: Mutex<PreferenceView>

    /// Opens (creating if needed) `preferences.sqlite` in `directory` and loads the view.
    public init(directory: URL) throws {
        database = try SQLiteDatabase.open(Self.fileName, in: directory, migrator: Self.migrator)
        view = Mutex(try database.read(Self.load))
    }

    // MARK: Deciding

    /// The decision for `delivery`, from memory.
    public func decide(_ delivery: Delivery, critical: Bool) -> FilterDecision {
        view.withLock { $0.decide(delivery, critical: critical) }
    }

    /// A copy of the whole view (for benchmarks and tests of the pure logic).
    public var snapshot: PreferenceView { view.withLock { $0 } }

    // MARK: Reading

    public func network(app: String) -> Bool { view.withLock { $0.network(app: app) } }
    public func user(app: String, userId: String) -> UserPreferences { view.withLock { $0.user(app: app, userId: userId) } }
    public func channel(app: String, userId: String, channelId: String) -> Bool {
        view.withLock { $0.channel(app: app, userId: userId, channelId: channelId) }
    }
    public func configuration(app: String, deviceId: String) -> NotificationConfiguration {
        view.withLock { $0.configuration(app: app, deviceId: deviceId) }
    }

    // MARK: Writing

    public func setNetwork(app: String, enabled: Bool) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO network (app, enabled, updatedAt) VALUES (?, ?, ?)
                ON CONFLICT (app) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt
                """, arguments: [app, enabled, Date()])
            return { $0.setNetwork(app: app, enabled: enabled) }
        }
    }

    public func setUser(app: String, userId: String, _ preferences: UserPreferences) async throws {
        let muted = String(decoding: try JSONEncoder().encode(Array(Set(preferences.mutedKinds)).sorted()), as: UTF8.self)
        try await write { db in
            try db.execute(sql: """
                INSERT INTO users (app, userId, enabled, mutedKinds, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, userId) DO UPDATE SET enabled = excluded.enabled, mutedKinds = excluded.mutedKinds, updatedAt = excluded.updatedAt
                """, arguments: [app, userId, preferences.enabled, muted, Date()])
            return { $0.setUser(app: app, userId: userId, preferences) }
        }
    }

    public func setChannel(app: String, userId: String, channelId: String, enabled: Bool) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO channels (app, userId, channelId, enabled, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, userId, channelId) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt
                """, arguments: [app, userId, channelId, enabled, Date()])
            return { $0.setChannel(app: app, userId: userId, channelId: channelId, enabled: enabled) }
        }
    }

    /// Replaces a device's configuration.
    public func setConfiguration(app: String, deviceId: String, _ configuration: NotificationConfiguration) async throws {
        _ = try await updateConfiguration(app: app, deviceId: deviceId) { $0 = configuration }
    }

    /// Changes a device's configuration in place (read, change and write as one step, so
    /// concurrent changes of one device do not lose each other) and returns the result.
    public func updateConfiguration(app: String, deviceId: String, _ change: @escaping @Sendable (inout NotificationConfiguration) -> Void) async throws -> NotificationConfiguration {
        try await write { db in
            var configuration = self.configuration(app: app, deviceId: deviceId)
            change(&configuration)
            let json = String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO devices (app, deviceId, configuration, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (app, deviceId) DO UPDATE SET configuration = excluded.configuration, updatedAt = excluded.updatedAt
                """, arguments: [app, deviceId, json, Date()])
            let result = configuration
            return { $0.setConfiguration(app: app, deviceId: deviceId, result) }
        }
        return configuration(app: app, deviceId: deviceId)
    }

    /// Runs `body` in a transaction on the single writer; after the commit, applies the view
    /// change it returned. Writes are serialized, so what `body` reads from the view is the
    /// state after the previous write.
    private func write(_ body: @escaping @Sendable (Database) throws -> (@Sendable (inout PreferenceView) -> Void)) async throws {
        try await database.writeWithoutTransaction { db in
            var apply: (@Sendable (inout PreferenceView) -> Void)?
            try db.inTransaction {
                apply = try body(db)
                return .commit
            }
            if let apply { self.view.withLock { apply(&$0) } }
        }
    }

    // MARK: Schema

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: network, users, channels, devices") { db in
            try db.create(table: "network") { t in
                t.primaryKey("app", .text)
                t.column("enabled", .boolean).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "users") { t in
                t.column("app", .text).notNull()
                t.column("userId", .text).notNull()
                t.column("enabled", .boolean).notNull()
                t.column("mutedKinds", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["app", "userId"])
            }
            try db.create(table: "channels") { t in
                t.column("app", .text).notNull()
                t.column("userId", .text).notNull()
                t.column("channelId", .text).notNull()
                t.column("enabled", .boolean).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["app", "userId", "channelId"])
            }
            try db.create(table: "devices") { t in
                t.column("app", .text).notNull()
                t.column("deviceId", .text).notNull()
                t.column("configuration", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["app", "deviceId"])
            }
        }
        return migrator
    }

    private static func load(_ db: Database) throws -> PreferenceView {
        var view = PreferenceView()
        for row in try Row.fetchAll(db, sql: "SELECT app, enabled FROM network") {
            view.setNetwork(app: row["app"], enabled: row["enabled"])
        }
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, sql: "SELECT app, userId, enabled, mutedKinds FROM users") {
            let muted = try decoder.decode([String].self, from: Data((row["mutedKinds"] as String).utf8))
            view.setUser(app: row["app"], userId: row["userId"], UserPreferences(enabled: row["enabled"], mutedKinds: muted))
        }
        for row in try Row.fetchAll(db, sql: "SELECT app, userId, channelId, enabled FROM channels") {
            view.setChannel(app: row["app"], userId: row["userId"], channelId: row["channelId"], enabled: row["enabled"])
        }
        for row in try Row.fetchAll(db, sql: "SELECT app, deviceId, configuration FROM devices") {
            let configuration = try decoder.decode(NotificationConfiguration.self, from: Data((row["configuration"] as String).utf8))
            view.setConfiguration(app: row["app"], deviceId: row["deviceId"], configuration)
        }
        return view
    }
}
