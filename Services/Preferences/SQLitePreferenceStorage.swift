import Foundation
import GRDB
import HeraldModel
import HeraldStorage
import Synchronization

/// Preferences in SQLite through GRDB (WAL, migrations), `preferences.sqlite` under the data
/// directory: the default storage. One process owns the file, so versions are a counter of
/// this process's writes, taken inside the single writer (commit order is version order).
public final class SQLitePreferenceStorage: PreferenceStorage {
    public static let fileName = "preferences.sqlite"

    private let database: DatabasePool
    private let writes = Atomic<Int64>(0)

    /// Opens (creating if needed) `preferences.sqlite` in `directory`.
    public init(directory: URL) throws {
        database = try SQLiteDatabase.open(Self.fileName, in: directory, migrator: Self.migrator)
    }

    public func loadAll() async throws -> [VersionedEntry] {
        try await database.read { db in
            var entries: [VersionedEntry] = []
            for row in try Row.fetchAll(db, sql: "SELECT app, enabled FROM network") {
                entries.append(VersionedEntry(PreferenceEntry(.network(app: row["app"]), .network(enabled: row["enabled"])), version: 0))
            }
            for row in try Row.fetchAll(db, sql: "SELECT app, userId, enabled, mutedKinds FROM users") {
                entries.append(VersionedEntry(PreferenceEntry(.user(app: row["app"], userId: row["userId"]), try Self.user(row)), version: 0))
            }
            for row in try Row.fetchAll(db, sql: "SELECT app, userId, channelId, enabled FROM channels") {
                entries.append(VersionedEntry(
                    PreferenceEntry(.channel(app: row["app"], userId: row["userId"], channelId: row["channelId"]), .channel(enabled: row["enabled"])), version: 0))
            }
            for row in try Row.fetchAll(db, sql: "SELECT app, deviceId, configuration FROM devices") {
                entries.append(VersionedEntry(PreferenceEntry(.device(app: row["app"], deviceId: row["deviceId"]), try Self.device(row)), version: 0))
            }
            return entries
        }
    }

    public func load(_ key: PreferenceEntry.Key) async throws -> VersionedEntry? {
        let version = writes.load(ordering: .relaxed)
        return try await database.read { db in
            let value: PreferenceEntry.Value?
            switch key {
            case .network(let app):
                value = try Row.fetchOne(db, sql: "SELECT enabled FROM network WHERE app = ?", arguments: [app]).map { .network(enabled: $0["enabled"]) }
            case .user(let app, let userId):
                value = try Row.fetchOne(db, sql: "SELECT enabled, mutedKinds FROM users WHERE app = ? AND userId = ?", arguments: [app, userId]).map(Self.user)
            case .channel(let app, let userId, let channelId):
                value = try Row.fetchOne(db, sql: "SELECT enabled FROM channels WHERE app = ? AND userId = ? AND channelId = ?", arguments: [app, userId, channelId])
                    .map { .channel(enabled: $0["enabled"]) }
            case .device(let app, let deviceId):
                value = try Row.fetchOne(db, sql: "SELECT configuration FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId]).map(Self.device)
            }
            return value.map { VersionedEntry(PreferenceEntry(key, $0), version: version) }
        }
    }

    public func save(_ entry: PreferenceEntry) async throws -> VersionedEntry {
        try await database.write { db in
            try Self.write(entry, db)
            return VersionedEntry(entry, version: self.writes.add(1, ordering: .relaxed).newValue)
        }
    }

    public func updateConfiguration(app: String, deviceId: String, _ change: @escaping @Sendable (inout NotificationConfiguration) throws -> Void) async throws -> VersionedEntry {
        try await database.write { db in
            var configuration = try Row.fetchOne(db, sql: "SELECT configuration FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
                .map(Self.configuration) ?? NotificationConfiguration()
            try change(&configuration)
            let entry = PreferenceEntry(.device(app: app, deviceId: deviceId), .device(configuration))
            try Self.write(entry, db)
            return VersionedEntry(entry, version: self.writes.add(1, ordering: .relaxed).newValue)
        }
    }

    private static func write(_ entry: PreferenceEntry, _ db: Database) throws {
        let now = Date()
        switch (entry.key, entry.value) {
        case (.network(let app), .network(let enabled)):
            try db.execute(sql: """
                INSERT INTO network (app, enabled, updatedAt) VALUES (?, ?, ?)
                ON CONFLICT (app) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt
                """, arguments: [app, enabled, now])
        case (.user(let app, let userId), .user(let preferences)):
            try db.execute(sql: """
                INSERT INTO users (app, userId, enabled, mutedKinds, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, userId) DO UPDATE SET enabled = excluded.enabled, mutedKinds = excluded.mutedKinds, updatedAt = excluded.updatedAt
                """, arguments: [app, userId, preferences.enabled, try PreferenceCoding.mutedKinds(preferences), now])
        case (.channel(let app, let userId, let channelId), .channel(let enabled)):
            try db.execute(sql: """
                INSERT INTO channels (app, userId, channelId, enabled, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, userId, channelId) DO UPDATE SET enabled = excluded.enabled, updatedAt = excluded.updatedAt
                """, arguments: [app, userId, channelId, enabled, now])
        case (.device(let app, let deviceId), .device(let configuration)):
            try db.execute(sql: """
                INSERT INTO devices (app, deviceId, configuration, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (app, deviceId) DO UPDATE SET configuration = excluded.configuration, updatedAt = excluded.updatedAt
                """, arguments: [app, deviceId, try PreferenceCoding.configuration(configuration), now])
        default:
            preconditionFailure("a preference entry whose value does not match its key: \(entry.key)")
        }
    }

    private static func user(_ row: Row) throws -> PreferenceEntry.Value {
        .user(UserPreferences(enabled: row["enabled"], mutedKinds: try PreferenceCoding.mutedKinds(row["mutedKinds"] as String)))
    }

    private static func configuration(_ row: Row) throws -> NotificationConfiguration {
        try PreferenceCoding.configuration(row["configuration"] as String)
    }

    private static func device(_ row: Row) throws -> PreferenceEntry.Value {
        .device(try configuration(row))
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
}

/// How user and device preferences are kept as text: muted kinds as a sorted JSON array, a
/// configuration as its JSON. Both stores write the same text.
enum PreferenceCoding {
    static func mutedKinds(_ preferences: UserPreferences) throws -> String {
        String(decoding: try JSONEncoder().encode(Array(Set(preferences.mutedKinds)).sorted()), as: UTF8.self)
    }

    static func mutedKinds(_ text: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    static func configuration(_ configuration: NotificationConfiguration) throws -> String {
        String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
    }

    static func configuration(_ text: String) throws -> NotificationConfiguration {
        try JSONDecoder().decode(NotificationConfiguration.self, from: Data(text.utf8))
    }
}
