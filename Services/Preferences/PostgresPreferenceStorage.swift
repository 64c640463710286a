import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// Preferences in PostgreSQL, for several `herald-preferences` replicas on one database.
/// The SQLite tables in intent, each row with a version the database increments on every
/// write, so each replica's view applies the newest value of a key whatever order the news
/// reaches it in.
public final class PostgresPreferenceStorage: PreferenceStorage {
    let database: PostgresPool
    private var logger: Logger { database.logger }

    /// Migrates the database (once across replicas) and opens the storage on it.
    public init(database: PostgresPool) async throws {
        self.database = database
        try await database.migrate(scope: "preferences", Self.migrations)
    }

    public func loadAll() async throws -> [VersionedEntry] {
        var entries: [VersionedEntry] = []
        for (app, enabled, version) in try await database.query("SELECT app, enabled, version FROM network", logger: logger).decode((String, Bool, Int64).self) {
            entries.append(VersionedEntry(PreferenceEntry(.network(app: app), .network(enabled: enabled)), version: version))
        }
        for (app, userId, enabled, muted, version)
            in try await database.query("SELECT app, userId, enabled, mutedKinds, version FROM users", logger: logger).decode((String, String, Bool, String, Int64).self) {
            let value = PreferenceEntry.Value.user(UserPreferences(enabled: enabled, mutedKinds: try PreferenceCoding.mutedKinds(muted)))
            entries.append(VersionedEntry(PreferenceEntry(.user(app: app, userId: userId), value), version: version))
        }
        for (app, userId, channelId, enabled, version)
            in try await database.query("SELECT app, userId, channelId, enabled, version FROM channels", logger: logger).decode((String, String, String, Bool, Int64).self) {
            entries.append(VersionedEntry(PreferenceEntry(.channel(app: app, userId: userId, channelId: channelId), .channel(enabled: enabled)), version: version))
        }
        for (app, deviceId, configuration, version)
            in try await database.query("SELECT app, deviceId, configuration, version FROM devices", logger: logger).decode((String, String, String, Int64).self) {
            let value = PreferenceEntry.Value.device(try PreferenceCoding.configuration(configuration))
            entries.append(VersionedEntry(PreferenceEntry(.device(app: app, deviceId: deviceId), value), version: version))
        }
        return entries
    }

    public func load(_ key: PreferenceEntry.Key) async throws -> VersionedEntry? {
        switch key {
        case .network(let app):
            for (enabled, version) in try await database.query(
                "SELECT enabled, version FROM network WHERE app = \(app)", logger: logger).decode((Bool, Int64).self) {
                return VersionedEntry(PreferenceEntry(key, .network(enabled: enabled)), version: version)
            }
        case .user(let app, let userId):
            for (enabled, muted, version) in try await database.query(
                "SELECT enabled, mutedKinds, version FROM users WHERE app = \(app) AND userId = \(userId)", logger: logger).decode((Bool, String, Int64).self) {
                return VersionedEntry(PreferenceEntry(key, .user(UserPreferences(enabled: enabled, mutedKinds: try PreferenceCoding.mutedKinds(muted)))), version: version)
            }
        case .channel(let app, let userId, let channelId):
            for (enabled, version) in try await database.query(
                "SELECT enabled, version FROM channels WHERE app = \(app) AND userId = \(userId) AND channelId = \(channelId)", logger: logger).decode((Bool, Int64).self) {
                return VersionedEntry(PreferenceEntry(key, .channel(enabled: enabled)), version: version)
            }
        case .device(let app, let deviceId):
            for (configuration, version) in try await database.query(
                "SELECT configuration, version FROM devices WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger).decode((String, Int64).self) {
                return VersionedEntry(PreferenceEntry(key, .device(try PreferenceCoding.configuration(configuration))), version: version)
            }
        }
        return nil
    }

    public func save(_ entry: PreferenceEntry) async throws -> VersionedEntry {
        let logger = logger
        return try await database.withConnection { db in
            VersionedEntry(entry, version: try await Self.write(entry, db, logger: logger))
        }
    }

    public func updateConfiguration(app: String, deviceId: String, _ change: @escaping @Sendable (inout NotificationConfiguration) throws -> Void) async throws -> VersionedEntry {
        let logger = logger
        return try await database.withTransaction { db in
            // Changes of one device take turns across replicas, including its first one.
            try await db.run("SELECT pg_advisory_xact_lock(hashtext(\(app)), hashtext(\(deviceId)))", logger: logger)
            var configuration = NotificationConfiguration()
            for text in try await db.run(
                "SELECT configuration FROM devices WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger).decode(String.self) {
                configuration = try PreferenceCoding.configuration(text)
            }
            try change(&configuration)
            let entry = PreferenceEntry(.device(app: app, deviceId: deviceId), .device(configuration))
            return VersionedEntry(entry, version: try await Self.write(entry, db, logger: logger))
        }
    }

    /// Inserts or replaces `entry`; returns the row's new version.
    private static func write(_ entry: PreferenceEntry, _ db: PostgresConnection, logger: Logger) async throws -> Int64 {
        let now = Date()
        let rows: [PostgresRow]
        switch (entry.key, entry.value) {
        case (.network(let app), .network(let enabled)):
            rows = try await db.run("""
                INSERT INTO network (app, enabled, updatedAt, version) VALUES (\(app), \(enabled), \(now), 1)
                ON CONFLICT (app) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt, version = network.version + 1
                RETURNING version
                """, logger: logger)
        case (.user(let app, let userId), .user(let preferences)):
            let muted = try PreferenceCoding.mutedKinds(preferences)
            rows = try await db.run("""
                INSERT INTO users (app, userId, enabled, mutedKinds, updatedAt, version) VALUES (\(app), \(userId), \(preferences.enabled), \(muted), \(now), 1)
                ON CONFLICT (app, userId) DO UPDATE SET enabled = excluded.enabled, mutedKinds = excluded.mutedKinds, updatedAt = excluded.updatedAt,
                    version = users.version + 1
                RETURNING version
                """, logger: logger)
        case (.channel(let app, let userId, let channelId), .channel(let enabled)):
            rows = try await db.run("""
                INSERT INTO channels (app, userId, channelId, enabled, updatedAt, version) VALUES (\(app), \(userId), \(channelId), \(enabled), \(now), 1)
                ON CONFLICT (app, userId, channelId) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt, version = channels.version + 1
                RETURNING version
                """, logger: logger)
        case (.device(let app, let deviceId), .device(let configuration)):
            let text = try PreferenceCoding.configuration(configuration)
            rows = try await db.run("""
                INSERT INTO devices (app, deviceId, configuration, updatedAt, version) VALUES (\(app), \(deviceId), \(text), \(now), 1)
                ON CONFLICT (app, deviceId) DO UPDATE SET configuration = excluded.configuration, updatedAt = excluded.updatedAt, version = devices.version + 1
                RETURNING version
                """, logger: logger)
        default:
            preconditionFailure("a preference entry whose value does not match its key: \(entry.key)")
        }
        for version in try rows.decode(Int64.self) { return version }
        throw StorageError("the preference write returned no version")
    }

    static let migrations: [PostgresPool.Migration] = [
        .init("v1: network, users, channels, devices", """
            CREATE TABLE network (app TEXT PRIMARY KEY, enabled BOOLEAN NOT NULL, updatedAt TIMESTAMPTZ NOT NULL, version BIGINT NOT NULL);
            CREATE TABLE users (
                app TEXT NOT NULL, userId TEXT NOT NULL, enabled BOOLEAN NOT NULL, mutedKinds TEXT NOT NULL, updatedAt TIMESTAMPTZ NOT NULL,
                version BIGINT NOT NULL, PRIMARY KEY (app, userId));
            CREATE TABLE channels (
                app TEXT NOT NULL, userId TEXT NOT NULL, channelId TEXT NOT NULL, enabled BOOLEAN NOT NULL, updatedAt TIMESTAMPTZ NOT NULL,
                version BIGINT NOT NULL, PRIMARY KEY (app, userId, channelId));
            CREATE TABLE devices (
                app TEXT NOT NULL, deviceId TEXT NOT NULL, configuration TEXT NOT NULL, updatedAt TIMESTAMPTZ NOT NULL,
                version BIGINT NOT NULL, PRIMARY KEY (app, deviceId))
            """),
    ]
}
