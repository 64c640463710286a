import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO
import Synchronization

/// Registration's store in PostgreSQL, for several `herald-registration` replicas on one database.
/// The same tables as the SQLite store; what SQLite gets from one process owning the file
/// comes here from the database: a token's device is a unique index, a device's user its
/// primary key (the last registration wins), and an event's claim names the replica that
/// holds it, which a replica takes over only once the claim is older than `claimLease`
/// (its holder died).
public final class PostgresRegistrationStore: RegistrationStore {
    let database: PostgresPool

    /// This process, as claims name it (0 names no process: a claim carried over from the
    /// former schema).
    let instance = Int64.random(in: 1...Int64.max)

    /// How long a claim holds against other replicas: a fan-out takes well under a second; a
    /// claim this old was left by a replica that died, and its events are redelivered.
    public let claimLease: TimeInterval

    /// The events this process has claimed and not yet marked processed or released.
    let inFlight = Mutex<Set<EventKey>>([])

    var logger: Logger { database.logger }

    /// Migrates the database (once across replicas) and opens the store on it.
    public init(database: PostgresPool, claimLease: TimeInterval = 30) async throws {
        self.database = database
        self.claimLease = claimLease
        try await database.migrate(scope: "registration", Self.migrations)
    }

    /// Forgets processed event ids older than `window`, revocation audit rows older than
    /// `auditWindow`, and outcomes, device outcomes, delivered counters and logged events
    /// older than `outcomeWindow`; returns how many of each. Autovacuum makes the space
    /// reusable.
    public func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts {
        func count(_ query: PostgresQuery) async throws -> Int {
            try await database.query(query, logger: logger).decode(Int.self).reduce(0) { total, _ in total + 1 }
        }
        let kept = StoredTime.millis(now.addingTimeInterval(-outcomeWindow))
        let events = try await rotateEventIds(now: now, window: window)
        let revocations = try await count("DELETE FROM revokedTokens WHERE revokedAt < \(now.addingTimeInterval(-auditWindow)) RETURNING 1")
        let outcomes = try await count("DELETE FROM outcomes WHERE at < \(now.addingTimeInterval(-outcomeWindow)) RETURNING 1")
        try await database.query("DELETE FROM deviceOutcomes WHERE at < \(now.addingTimeInterval(-outcomeWindow))", logger: logger)
        try await database.query("DELETE FROM deliveredPerMinute WHERE minute < \(StoredTime.minute(kept))", logger: logger)
        // App by app through eventLogByTime: a range of the index each, never a scan.
        func app(after previous: String?) async throws -> String? {
            var next: String?
            for try app in try await database.query("SELECT min(app) FROM eventLog WHERE \(previous)::text IS NULL OR app > \(previous)", logger: logger)
                .decode(String?.self) { next = app }
            return next
        }
        var logged = 0
        var next = try await app(after: nil)
        while let current = next {
            logged += try await count("DELETE FROM eventLog WHERE app = \(current) AND acceptedAt < \(kept) RETURNING 1")
            next = try await app(after: current)
        }
        return PruneCounts(events: events, revocations: revocations, outcomes: outcomes, logged: logged)
    }

    public func storedBytes() async throws -> Int {
        var total = 0
        for size in try await database.query("""
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r'
            """, logger: logger).decode(Int64.self) { total = Int(size) }
        return total
    }

    /// The oldest accepted time, app by app through eventLogByTime (never a scan).
    public func oldestAcceptedAt() async throws -> Date? {
        var oldest: Int64?
        var app: String? = nil
        repeat {
            var next: String?
            for try value in try await database.query("SELECT min(app) FROM eventLog WHERE \(app)::text IS NULL OR app > \(app)", logger: logger)
                .decode(String?.self) { next = value }
            app = next
            if let current = app {
                for try first in try await database.query("SELECT min(acceptedAt) FROM eventLog WHERE app = \(current)", logger: logger).decode(Int64?.self) {
                    if let first { oldest = min(oldest ?? first, first) }
                }
            }
        } while app != nil
        return oldest.map(StoredTime.date)
    }

    /// Starts a new generation of event ids when the current one is an `older`th of `window`
    /// old (`IdempotencyWindow`): the oldest generation is dropped whole, the others renamed
    /// one place down, claims still in progress carried into the new current one, in one
    /// transaction that waits for the claims reading any. Returns how many ids went.
    func rotateEventIds(now: Date, window: TimeInterval) async throws -> Int {
        let at = StoredTime.millis(now)
        let logger = logger
        return try await database.withTransaction { db in
            var since: Int64?
            for value in try await db.run("SELECT since FROM idempotencyGeneration FOR UPDATE", logger: logger).decode(Int64.self) { since = value }
            guard let since else {
                try await db.run("INSERT INTO idempotencyGeneration (since) VALUES (\(at))", logger: logger)
                return 0
            }
            guard IdempotencyWindow.isDue(since: since, now: at, window: window) else { return 0 }
            let oldest = IdempotencyWindow.table(IdempotencyWindow.older), newest = IdempotencyWindow.table(1)
            var forgotten = 0
            for count in try await db.run("SELECT count(*) FROM \(unescaped: oldest)", logger: logger).decode(Int.self) { forgotten = count }
            try await db.run("DROP TABLE \(unescaped: oldest)", logger: logger)
            for (from, to) in IdempotencyWindow.renames {
                try await db.run("ALTER TABLE \(unescaped: from) RENAME TO \(unescaped: to)", logger: logger)
                try await db.run("ALTER INDEX \(unescaped: from)Key RENAME TO \(unescaped: to)Key", logger: logger)
            }
            for statement: PostgresQuery in [
                "CREATE TABLE processedEvents (key UUID NOT NULL, claimedBy BIGINT, claimedAt BIGINT, CONSTRAINT processedEventsKey PRIMARY KEY (key))",
                "INSERT INTO processedEvents SELECT key, claimedBy, claimedAt FROM \(unescaped: newest) WHERE claimedBy IS NOT NULL",
                "DELETE FROM \(unescaped: newest) WHERE claimedBy IS NOT NULL",
                "UPDATE idempotencyGeneration SET since = \(at)",
            ] {
                try await db.run(statement, logger: logger)
            }
            return forgotten
        }
    }

    /// A cursor's position here: microseconds since 1970, exact both ways.
    static func micros(_ cursor: PageCursor?) throws -> Int64? {
        guard let cursor else { return nil }
        guard let micros = Int64(cursor.position) else {
            throw CommandError(code: "invalid-cursor", detail: "cursor: not a cursor this list answered with")
        }
        return micros
    }

    /// The SQLite store's schema in intent, with PostgreSQL's types, the token's device as a
    /// unique index, and a claim's holder and time.
    static let migrations: [PostgresPool.Migration] = [
        .init("v1: devices, push ids, address keys, sponsees, events, outcomes, revocations", """
            CREATE TABLE devices (
                app TEXT NOT NULL, deviceId TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, os TEXT NOT NULL,
                userId TEXT, locale TEXT, keyId TEXT, p256dh TEXT, auth TEXT,
                createdAt TIMESTAMPTZ NOT NULL, updatedAt TIMESTAMPTZ NOT NULL, lastSeenAt TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (app, deviceId));
            CREATE INDEX devicesByUser ON devices (app, userId);
            CREATE UNIQUE INDEX devicesByToken ON devices (app, token);
            CREATE TABLE pushIds (app TEXT NOT NULL, deviceId TEXT NOT NULL, pushId TEXT NOT NULL, PRIMARY KEY (app, deviceId, pushId));
            CREATE INDEX pushIdsByPushId ON pushIds (app, pushId, deviceId);
            CREATE TABLE addressKeys (
                app TEXT NOT NULL, emailAddressId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL, ownerUserId TEXT,
                updatedAt TIMESTAMPTZ NOT NULL, PRIMARY KEY (app, emailAddressId));
            CREATE TABLE sponsees (
                app TEXT NOT NULL, sponseeId TEXT NOT NULL, type BIGINT NOT NULL, value TEXT NOT NULL, updatedAt TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (app, sponseeId));
            CREATE TABLE processedEvents (
                app TEXT NOT NULL, eventId TEXT NOT NULL, processedAt TIMESTAMPTZ NOT NULL,
                claimed BOOLEAN NOT NULL, claimedBy TEXT, claimedAt TIMESTAMPTZ, PRIMARY KEY (app, eventId));
            CREATE INDEX processedEventsByTime ON processedEvents (processedAt);
            CREATE TABLE revokedTokens (
                app TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, deviceId TEXT, reason TEXT NOT NULL,
                failedSendAt TIMESTAMPTZ NOT NULL, revokedAt TIMESTAMPTZ NOT NULL, result TEXT NOT NULL);
            CREATE INDEX revokedTokensByTime ON revokedTokens (revokedAt);
            CREATE INDEX revokedTokensByToken ON revokedTokens (app, token);
            CREATE TABLE outcomes (
                app TEXT NOT NULL, deliveryId TEXT NOT NULL, eventId TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, providerCode TEXT,
                at TIMESTAMPTZ NOT NULL, updates BIGINT NOT NULL, PRIMARY KEY (app, deliveryId));
            CREATE INDEX outcomesByEvent ON outcomes (app, eventId);
            CREATE INDEX outcomesByTime ON outcomes (at)
            """),
        .init("v2: the event log, an outcome's provider and device", """
            ALTER TABLE outcomes ADD COLUMN platform TEXT, ADD COLUMN deviceId TEXT;
            CREATE INDEX outcomesByDevice ON outcomes (app, deviceId, at);
            CREATE INDEX outcomesByAppTime ON outcomes (app, at);
            CREATE TABLE eventLog (
                app TEXT NOT NULL, eventId TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, acceptedAt TIMESTAMPTZ NOT NULL,
                deliveries BIGINT NOT NULL, delivered BIGINT NOT NULL DEFAULT 0, failed BIGINT NOT NULL DEFAULT 0,
                expired BIGINT NOT NULL DEFAULT 0, revoked BIGINT NOT NULL DEFAULT 0, filtered BIGINT NOT NULL DEFAULT 0,
                retrying BIGINT NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'pending', completedAt TIMESTAMPTZ,
                PRIMARY KEY (app, eventId));
            CREATE INDEX eventLogByTime ON eventLog (app, acceptedAt, eventId);
            CREATE INDEX eventLogByStatus ON eventLog (app, status, acceptedAt, eventId);
            CREATE INDEX eventLogForPruning ON eventLog (acceptedAt);
            CREATE INDEX devicesByCreation ON devices (app, createdAt, deviceId);
            CREATE INDEX devicesByUserCreation ON devices (app, userId, createdAt, deviceId)
            """),
        .init("v3: one address key per address and device", """
            CREATE TABLE deviceAddressKeys (
                app TEXT NOT NULL, emailAddressId TEXT NOT NULL, deviceId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL,
                ownerUserId TEXT, updatedAt TIMESTAMPTZ NOT NULL, PRIMARY KEY (app, emailAddressId, deviceId));
            CREATE INDEX deviceAddressKeysByDevice ON deviceAddressKeys (app, deviceId)
            """),
        .init("v4: an event's trace", "ALTER TABLE eventLog ADD COLUMN traceId TEXT"),
        // Issue 62: the idempotency table keyed by a 16-byte digest (a uuid), holder and times
        // as integers; the event log with integer times and status, a 64-bit lookup key, no
        // index on a column an update changes (so every update is HOT, leaving no dead index
        // entries) and room in each page for them; each device's latest outcome; delivered
        // outcomes per minute as counters. Rows are carried over; outcome rows stay rows.
        .init("v5: compact events", """
            CREATE TABLE eventIds (key UUID NOT NULL, claimedBy BIGINT, claimedAt BIGINT, CONSTRAINT processedEventsKey PRIMARY KEY (key));
            INSERT INTO eventIds (key, claimedBy, claimedAt)
                SELECT encode(substring(sha256(convert_to(app, 'UTF8') || '\\x00'::bytea || convert_to(eventId, 'UTF8')) FROM 1 FOR 16), 'hex')::uuid,
                    CASE WHEN claimed THEN 0 END, CASE WHEN claimed THEN (extract(epoch FROM claimedAt) * 1000)::bigint END
                FROM processedEvents ON CONFLICT DO NOTHING;
            DROP TABLE processedEvents;
            ALTER TABLE eventIds RENAME TO processedEvents;
            CREATE TABLE processedEventsBefore (key UUID NOT NULL, claimedBy BIGINT, claimedAt BIGINT, CONSTRAINT processedEventsBeforeKey PRIMARY KEY (key));
            CREATE TABLE idempotencyGeneration (since BIGINT NOT NULL);
            CREATE TABLE compactEventLog (
                key BIGINT NOT NULL, acceptedAt BIGINT NOT NULL, deliveries INTEGER NOT NULL, completedAfter INTEGER, status SMALLINT NOT NULL DEFAULT 0,
                app TEXT NOT NULL, eventId TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, counts BYTEA, traceId BYTEA, deliveredList BYTEA
            ) WITH (fillfactor = 90);
            INSERT INTO compactEventLog (key, acceptedAt, deliveries, completedAfter, status, app, eventId, source, kind, counts, traceId)
                SELECT ('x' || encode(substring(sha256(convert_to(app, 'UTF8') || '\\x00'::bytea || convert_to(eventId, 'UTF8')) FROM 1 FOR 8), 'hex'))::bit(64)::bigint,
                    (extract(epoch FROM acceptedAt) * 1000)::bigint, deliveries,
                    ((extract(epoch FROM completedAt) - extract(epoch FROM acceptedAt)) * 1000)::integer,
                    CASE status WHEN 'delivered' THEN 1 WHEN 'partial' THEN 2 WHEN 'failed' THEN 3 WHEN 'filtered' THEN 4 ELSE 0 END,
                    app, eventId, source, kind,
                    CASE WHEN delivered + failed + expired + revoked + filtered + retrying > 0 THEN int4send(delivered::integer) || int4send(failed::integer)
                        || int4send(expired::integer) || int4send(revoked::integer) || int4send(filtered::integer) || int4send(retrying::integer) END,
                    CASE WHEN traceId ~ '^[0-9a-f]{32}$' THEN decode(traceId, 'hex') END
                FROM eventLog ORDER BY acceptedAt;
            DROP TABLE eventLog;
            ALTER TABLE compactEventLog RENAME TO eventLog;
            CREATE INDEX eventLogByKey ON eventLog (key);
            CREATE INDEX eventLogByTime ON eventLog (app, acceptedAt);
            DROP INDEX outcomesByAppTime;
            CREATE TABLE deviceOutcomes (
                app TEXT NOT NULL, deviceId TEXT NOT NULL, eventId TEXT NOT NULL, deliveryId TEXT NOT NULL, status TEXT NOT NULL, providerCode TEXT,
                at TIMESTAMPTZ NOT NULL, PRIMARY KEY (app, deviceId));
            INSERT INTO deviceOutcomes (app, deviceId, eventId, deliveryId, status, providerCode, at)
                SELECT DISTINCT ON (app, deviceId) app, deviceId, eventId, deliveryId, status, providerCode, at FROM outcomes
                WHERE deviceId IS NOT NULL ORDER BY app, deviceId, at DESC;
            CREATE TABLE deliveredPerMinute (app TEXT NOT NULL, minute BIGINT NOT NULL, platform TEXT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (app, minute, platform))
            """),
        // Event ids in generations of an eighth of the window each (`IdempotencyWindow`).
        .init("v6: event ids in generations of an eighth of the window", """
            ALTER TABLE processedEventsBefore RENAME TO processedEventsBefore1;
            ALTER INDEX processedEventsBeforeKey RENAME TO processedEventsBefore1Key;
            """ + (2...8).map { age in
                "CREATE TABLE processedEventsBefore\(age) (key UUID NOT NULL, claimedBy BIGINT, claimedAt BIGINT, CONSTRAINT processedEventsBefore\(age)Key PRIMARY KEY (key));"
            }.joined(separator: "\n")),
        // Autovacuum by a percent of a table instead of its default fifth: the log loses a
        // sixtieth of itself at each prune and its rows are updated as outcomes come, so
        // with the default a fifth of the table would be dead before its space came back,
        // and the table would grow by that much after retention began to bite.
        .init("v7: vacuum the tables that churn at a percent of dead rows", ["eventLog", "deviceOutcomes", "deliveredPerMinute", "outcomes"].map {
            "ALTER TABLE \($0) SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000);"
        }.joined(separator: "\n")),
        .init("v8: ingest URLs' secrets", """
            CREATE TABLE ingestSecrets (
                app TEXT NOT NULL, urlId TEXT NOT NULL, source TEXT NOT NULL, networks TEXT NOT NULL, sha256 TEXT NOT NULL,
                createdAt TIMESTAMPTZ NOT NULL, PRIMARY KEY (app, urlId, sha256))
            """),
    ]
}
