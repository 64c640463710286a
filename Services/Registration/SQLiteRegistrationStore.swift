import Foundation
import GRDB
import HeraldCrypto
import HeraldModel
import HeraldStorage
import Synchronization

/// The registry in SQLite through GRDB (WAL, migrations), in `registration.sqlite` under the
/// data directory: the default store. One `herald-registration` owns a file, so a claim not
/// in this process's in-flight set was left by a process that died and is taken over at once.
public final class SQLiteRegistrationStore: RegistrationStore {
    public static let fileName = "registration.sqlite"
    let database: DatabasePool

    /// The events this process has claimed and not yet marked processed or released.
    let inFlight = Mutex<Set<EventKey>>([])

    /// SQLite's limit on bound parameters is far above this; chunks keep statements small.
    static let chunk = 500

    /// Opens (creating if needed) `registration.sqlite` in `directory`.
    public init(directory: URL) throws {
        database = try SQLiteDatabase.open(Self.fileName, in: directory, durability: .normal, migrator: Self.migrator)
    }

    /// Forgets processed event ids older than `window`, revocation audit rows older than
    /// `auditWindow` and delivery outcomes older than `outcomeWindow`; returns how many of each.
    public func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM processedEvents WHERE processedAt < ?", arguments: [now.addingTimeInterval(-window)])
            let events = db.changesCount
            try db.execute(sql: "DELETE FROM revokedTokens WHERE revokedAt < ?", arguments: [now.addingTimeInterval(-auditWindow)])
            let revocations = db.changesCount
            try db.execute(sql: "DELETE FROM outcomes WHERE at < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            let outcomes = db.changesCount
            try db.execute(sql: "DELETE FROM eventLog WHERE acceptedAt < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            return PruneCounts(events: events, revocations: revocations, outcomes: outcomes, logged: db.changesCount)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: devices, push ids, address keys, sponsees, processed events, revoked tokens") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    app TEXT NOT NULL, deviceId TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, os TEXT NOT NULL,
                    userId TEXT, locale TEXT, keyId TEXT, p256dh TEXT, auth TEXT,
                    createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL, lastSeenAt DATETIME NOT NULL,
                    PRIMARY KEY (app, deviceId));
                CREATE INDEX devicesByUser ON devices (app, userId);
                CREATE INDEX devicesByToken ON devices (app, token);
                CREATE TABLE pushIds (app TEXT NOT NULL, deviceId TEXT NOT NULL, pushId TEXT NOT NULL, PRIMARY KEY (app, deviceId, pushId));
                CREATE INDEX pushIdsByPushId ON pushIds (app, pushId);
                CREATE TABLE addressKeys (
                    app TEXT NOT NULL, emailAddressId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL, ownerUserId TEXT,
                    updatedAt DATETIME NOT NULL, PRIMARY KEY (app, emailAddressId));
                CREATE TABLE sponsees (
                    app TEXT NOT NULL, sponseeId TEXT NOT NULL, type INTEGER NOT NULL, value TEXT NOT NULL, updatedAt DATETIME NOT NULL,
                    PRIMARY KEY (app, sponseeId));
                CREATE TABLE processedEvents (app TEXT NOT NULL, eventId TEXT NOT NULL, processedAt DATETIME NOT NULL, PRIMARY KEY (app, eventId));
                CREATE INDEX processedEventsByTime ON processedEvents (processedAt);
                CREATE TABLE revokedTokens (
                    app TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, deviceId TEXT, reason TEXT NOT NULL,
                    failedSendAt DATETIME NOT NULL, revokedAt DATETIME NOT NULL, result TEXT NOT NULL);
                CREATE INDEX revokedTokensByTime ON revokedTokens (revokedAt);
                CREATE INDEX revokedTokensByToken ON revokedTokens (app, token);
                """)
        }
        migrator.registerMigration("v2: outcomes") { db in
            try db.execute(sql: """
                CREATE TABLE outcomes (
                    app TEXT NOT NULL, deliveryId TEXT NOT NULL, eventId TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, providerCode TEXT,
                    at DATETIME NOT NULL, updates INTEGER NOT NULL, PRIMARY KEY (app, deliveryId));
                CREATE INDEX outcomesByEvent ON outcomes (app, eventId);
                CREATE INDEX outcomesByTime ON outcomes (at);
                """)
        }
        migrator.registerMigration("v3: event claims") { db in
            // 1 while a process fans the event out; 0 once its deliveries are confirmed.
            try db.execute(sql: "ALTER TABLE processedEvents ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v4: a covering push-id index") { db in
            // With (app, pushId) alone, SQLite preferred the primary key's covering (app, …)
            // prefix: a scan of every push id of the app for each event.
            try db.execute(sql: """
                DROP INDEX pushIdsByPushId;
                CREATE INDEX pushIdsByPushId ON pushIds (app, pushId, deviceId);
                """)
        }
        migrator.registerMigration("v5: the event log, an outcome's provider and device") { db in
            try db.execute(sql: """
                ALTER TABLE outcomes ADD COLUMN platform TEXT;
                ALTER TABLE outcomes ADD COLUMN deviceId TEXT;
                CREATE INDEX outcomesByDevice ON outcomes (app, deviceId, at);
                CREATE INDEX outcomesByAppTime ON outcomes (app, at);
                CREATE TABLE eventLog (
                    app TEXT NOT NULL, eventId TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, acceptedAt DATETIME NOT NULL,
                    deliveries INTEGER NOT NULL, delivered INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
                    expired INTEGER NOT NULL DEFAULT 0, revoked INTEGER NOT NULL DEFAULT 0, filtered INTEGER NOT NULL DEFAULT 0,
                    retrying INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'pending', completedAt DATETIME,
                    PRIMARY KEY (app, eventId));
                CREATE INDEX eventLogByTime ON eventLog (app, acceptedAt, eventId);
                CREATE INDEX eventLogByStatus ON eventLog (app, status, acceptedAt, eventId);
                CREATE INDEX eventLogForPruning ON eventLog (acceptedAt);
                CREATE INDEX devicesByCreation ON devices (app, createdAt, deviceId);
                CREATE INDEX devicesByUserCreation ON devices (app, userId, createdAt, deviceId);
                """)
        }
        migrator.registerMigration("v6: one address key per address and device") { db in
            try db.execute(sql: """
                CREATE TABLE deviceAddressKeys (
                    app TEXT NOT NULL, emailAddressId TEXT NOT NULL, deviceId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL,
                    ownerUserId TEXT, updatedAt DATETIME NOT NULL, PRIMARY KEY (app, emailAddressId, deviceId));
                CREATE INDEX deviceAddressKeysByDevice ON deviceAddressKeys (app, deviceId);
                """)
        }
        migrator.registerMigration("v7: an event's trace") { db in
            try db.execute(sql: "ALTER TABLE eventLog ADD COLUMN traceId TEXT")
        }
        return migrator
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
