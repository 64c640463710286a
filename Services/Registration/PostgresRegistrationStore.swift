import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO
import Synchronization

/// The registry in PostgreSQL, for several `herald-registration` replicas on one database.
/// The same tables as the SQLite store; what SQLite gets from one process owning the file
/// comes here from the database: a token's device is a unique index, a device's user its
/// primary key (the last registration wins), and an event's claim names the replica that
/// holds it, which a replica takes over only once the claim is older than `claimLease`
/// (its holder died).
public final class PostgresRegistrationStore: RegistrationStore {
    let database: PostgresPool

    /// This process, as claims name it.
    let instance = UUID().uuidString

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

    public func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts {
        func count(_ query: PostgresQuery) async throws -> Int {
            var removed = 0
            for _ in try await database.query(query, logger: logger).decode(Int.self) { removed += 1 }
            return removed
        }
        let events = try await count("DELETE FROM processedEvents WHERE processedAt < \(now.addingTimeInterval(-window)) RETURNING 1")
        let revocations = try await count("DELETE FROM revokedTokens WHERE revokedAt < \(now.addingTimeInterval(-auditWindow)) RETURNING 1")
        let outcomes = try await count("DELETE FROM outcomes WHERE at < \(now.addingTimeInterval(-outcomeWindow)) RETURNING 1")
        let logged = try await count("DELETE FROM eventLog WHERE acceptedAt < \(now.addingTimeInterval(-outcomeWindow)) RETURNING 1")
        return PruneCounts(events: events, revocations: revocations, outcomes: outcomes, logged: logged)
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
    ]
}
