import Foundation
import GRDB
import HeraldCrypto
import HeraldModel
import HeraldStorage
import Synchronization

/// Registration's store in SQLite through GRDB (WAL, migrations), in `registration.sqlite` under the
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

    /// Forgets the oldest generation of processed event ids once the current one is an
    /// eighth of `window` old (`IdempotencyWindow`), revocation audit rows older than `auditWindow` and delivery
    /// outcomes and logged events older than `outcomeWindow`; returns how many of each. Then gives the freed pages back to the file system and
    /// truncates the WAL, so the files follow what is kept.
    public func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts {
        let counts = try await database.write { db in
            let kept = StoredTime.millis(now.addingTimeInterval(-outcomeWindow))
            let events = try Self.rotateEventIds(db, now: now, window: window)
            try db.execute(sql: "DELETE FROM revokedTokens WHERE revokedAt < ?", arguments: [now.addingTimeInterval(-auditWindow)])
            let revocations = db.changesCount
            try db.execute(sql: "DELETE FROM outcomes WHERE at < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            let outcomes = db.changesCount
            try db.execute(sql: "DELETE FROM deviceOutcomes WHERE at < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            try db.execute(sql: "DELETE FROM deliveredPerMinute WHERE minute < ?", arguments: [StoredTime.minute(kept)])
            // App by app through eventLogByTime: a range of the index each, never a scan.
            var logged = 0
            var app = try String.fetchOne(db, sql: "SELECT min(app) FROM eventLog")
            while let current = app {
                try db.execute(sql: "DELETE FROM eventLog WHERE app = ? AND acceptedAt < ?", arguments: [current, kept])
                logged += db.changesCount
                app = try String.fetchOne(db, sql: "SELECT min(app) FROM eventLog WHERE app > ?", arguments: [current])
            }
            return PruneCounts(events: events, revocations: revocations, outcomes: outcomes, logged: logged)
        }
        // Best effort: a checkpoint that readers keep from finishing is done by a later one.
        try? await database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA incremental_vacuum")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return counts
    }

    public func storedBytes() async throws -> Int {
        try await database.read { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            return (pages - free) * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
    }

    /// The oldest accepted time, app by app through eventLogByTime (never a scan).
    public func oldestAcceptedAt() async throws -> Date? {
        try await database.read { db in
            var oldest: Int64?
            var app = try String.fetchOne(db, sql: "SELECT min(app) FROM eventLog")
            while let current = app {
                if let first = try Int64.fetchOne(db, sql: "SELECT min(acceptedAt) FROM eventLog WHERE app = ?", arguments: [current]) {
                    oldest = min(oldest ?? first, first)
                }
                app = try String.fetchOne(db, sql: "SELECT min(app) FROM eventLog WHERE app > ?", arguments: [current])
            }
            return oldest.map(StoredTime.date)
        }
    }

    /// Starts a new generation of event ids when the current one is an `older`th of `window`
    /// old (`IdempotencyWindow`): the oldest generation goes (a drop, not a delete of rows),
    /// the others move one place down, carrying claims still in progress into the new
    /// current one. Returns how many ids went.
    static func rotateEventIds(_ db: Database, now: Date, window: TimeInterval) throws -> Int {
        let at = StoredTime.millis(now)
        guard let since = try Int64.fetchOne(db, sql: "SELECT since FROM idempotencyGeneration") else {
            try db.execute(sql: "INSERT INTO idempotencyGeneration (since) VALUES (?)", arguments: [at])
            return 0
        }
        guard IdempotencyWindow.isDue(since: since, now: at, window: window) else { return 0 }
        let oldest = IdempotencyWindow.table(IdempotencyWindow.older), newest = IdempotencyWindow.table(1)
        let forgotten = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(oldest)") ?? 0
        try db.execute(sql: "DROP TABLE \(oldest)")
        for (from, to) in IdempotencyWindow.renames { try db.execute(sql: "ALTER TABLE \(from) RENAME TO \(to)") }
        try db.execute(sql: """
            CREATE TABLE processedEvents (key BLOB NOT NULL PRIMARY KEY, claimed INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO processedEvents (key, claimed) SELECT key, claimed FROM \(newest) WHERE claimed = 1;
            DELETE FROM \(newest) WHERE claimed = 1;
            """)
        try db.execute(sql: "UPDATE idempotencyGeneration SET since = ?", arguments: [at])
        return forgotten
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
        migrator.registerMigration("v8: compact events: hashed idempotency keys, integer times, delivered deliveries in their event's row") { db in
            try Self.compactEvents(db)
        }
        migrator.registerMigration("v9: event ids in generations of an eighth of the window") { db in
            try db.execute(sql: "ALTER TABLE processedEventsBefore RENAME TO \(IdempotencyWindow.table(1))")
            for age in 2...8 {
                try db.execute(sql: "CREATE TABLE \(IdempotencyWindow.table(age)) (key BLOB NOT NULL PRIMARY KEY, claimed INTEGER NOT NULL) WITHOUT ROWID")
            }
        }
        migrator.registerMigration("v10: ingest URLs' secrets") { db in
            try db.execute(sql: """
                CREATE TABLE ingestSecrets (
                    app TEXT NOT NULL, urlId TEXT NOT NULL, source TEXT NOT NULL, networks TEXT NOT NULL, sha256 TEXT NOT NULL,
                    createdAt DATETIME NOT NULL, PRIMARY KEY (app, urlId, sha256))
                """)
        }
        return migrator
    }

    /// Issue 62's schema: the idempotency table keyed by a 16-byte digest in two generations
    /// (more since v9: `IdempotencyWindow`), the event log with
    /// a rowid, integer times and status, a 64-bit lookup key, its delivered deliveries in
    /// one list and no index on its ids; the latest outcome of each device in a table of its
    /// own; delivered outcomes per minute and provider as counters. Existing rows are carried
    /// over, completed events' delivered outcomes into their lists.
    static func compactEvents(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE eventIds (key BLOB NOT NULL PRIMARY KEY, claimed INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE processedEventsBefore (key BLOB NOT NULL PRIMARY KEY, claimed INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE idempotencyGeneration (since INTEGER NOT NULL);
            CREATE TABLE compactEventLog (
                id INTEGER PRIMARY KEY, key INTEGER NOT NULL, app TEXT NOT NULL, eventId TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL,
                acceptedAt INTEGER NOT NULL, deliveries INTEGER NOT NULL, counts BLOB, status INTEGER NOT NULL DEFAULT 0, completedAfter INTEGER,
                traceId BLOB, deliveredList BLOB);
            CREATE TABLE deviceOutcomes (
                app TEXT NOT NULL, deviceId TEXT NOT NULL, eventId TEXT NOT NULL, deliveryId TEXT NOT NULL, status TEXT NOT NULL, providerCode TEXT,
                at DATETIME NOT NULL, PRIMARY KEY (app, deviceId)) WITHOUT ROWID;
            CREATE TABLE deliveredPerMinute (
                app TEXT NOT NULL, minute INTEGER NOT NULL, platform TEXT NOT NULL, count INTEGER NOT NULL,
                PRIMARY KEY (app, minute, platform)) WITHOUT ROWID;
            INSERT INTO deviceOutcomes (app, deviceId, eventId, deliveryId, status, providerCode, at)
                SELECT app, deviceId, eventId, deliveryId, status, providerCode, max(at) FROM outcomes WHERE deviceId IS NOT NULL GROUP BY app, deviceId;
            """)
        let claim = try db.makeStatement(sql: "INSERT OR IGNORE INTO eventIds (key, claimed) VALUES (?, ?)")
        let processed = try Row.fetchCursor(db, sql: "SELECT app, eventId, claimed FROM processedEvents")
        while let row = try processed.next() {
            try claim.execute(arguments: [EventKey(app: row["app"], eventId: row["eventId"]).digest, row["claimed"] as Int])
        }
        let log = try db.makeStatement(sql: """
            INSERT INTO compactEventLog (key, app, eventId, source, kind, acceptedAt, deliveries, counts, status, completedAfter, traceId)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let logged = try Row.fetchCursor(db, sql: "SELECT * FROM eventLog ORDER BY acceptedAt, eventId")
        while let row = try logged.next() {
            let acceptedAt = StoredTime.millis(row["acceptedAt"])
            let completedAt: Date? = row["completedAt"]
            let progress = EventProgress(rawValue: row["status"]) ?? .pending
            var counts = EventCounts()
            (counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying) =
                (row["delivered"], row["failed"], row["expired"], row["revoked"], row["filtered"], row["retrying"])
            try log.execute(arguments: [
                EventKey(app: row["app"], eventId: row["eventId"]).logKey, row["app"], row["eventId"], row["source"], row["kind"], acceptedAt,
                row["deliveries"], StoredCounts.bytes(counts, listed: 0), progress.storedCode, completedAt.map { StoredTime.millis($0) - acceptedAt }, StoredTraceId.bytes(row["traceId"]),
            ])
        }
        try db.execute(sql: """
            DROP TABLE processedEvents;
            ALTER TABLE eventIds RENAME TO processedEvents;
            DROP TABLE eventLog;
            ALTER TABLE compactEventLog RENAME TO eventLog;
            CREATE INDEX eventLogByKey ON eventLog (key);
            CREATE INDEX eventLogByTime ON eventLog (app, acceptedAt);
            CREATE INDEX eventLogByStatus ON eventLog (app, status, acceptedAt) WHERE status <> 1;
            DROP INDEX outcomesByAppTime;
            """)
        let completed = try Row.fetchAll(db, sql: """
            SELECT id, app, eventId, acceptedAt, counts FROM eventLog e WHERE completedAfter IS NOT NULL
                AND EXISTS (SELECT 1 FROM outcomes o WHERE o.app = e.app AND o.eventId = e.eventId AND o.status = 'delivered')
            """)
        for row in completed {
            var list = DeliveredList()
            try collapse(db, app: row["app"], eventId: row["eventId"], acceptedAt: row["acceptedAt"], into: &list)
            let counts = StoredCounts.bytes(StoredCounts.counts(row["counts"], listed: 0), listed: list.count)
            try db.execute(sql: "UPDATE eventLog SET deliveredList = ?, counts = ? WHERE id = ?", arguments: [list.data, counts, row["id"] as Int64])
        }
    }

    /// Moves an event's delivered outcome rows into its delivered list (those whose id and
    /// time fit), counting them per minute and provider for `/stats` first.
    static func collapse(_ db: Database, app: String, eventId: String, acceptedAt: Int64, into list: inout DeliveredList) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT deliveryId, at, updates, platform FROM outcomes WHERE app = ? AND eventId = ? AND status = 'delivered'", arguments: [app, eventId])
        var delivered = DeliveredPerMinute()
        for row in rows {
            let deliveryId: String = row["deliveryId"]
            let at: Date = row["at"]
            guard list.append(deliveryId, at: at, updates: row["updates"], acceptedAt: StoredTime.date(acceptedAt)) else { continue }
            try db.execute(sql: "DELETE FROM outcomes WHERE app = ? AND deliveryId = ?", arguments: [app, deliveryId])
            delivered.add(app: app, at: at, platform: row["platform"])
        }
        try add(delivered, db)
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
