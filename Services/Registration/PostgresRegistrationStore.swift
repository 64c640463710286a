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
    private let inFlight = Mutex<Set<EventKey>>([])
    private var logger: Logger { database.logger }

    /// Migrates the database (once across replicas) and opens the store on it.
    public init(database: PostgresPool, claimLease: TimeInterval = 30) async throws {
        self.database = database
        self.claimLease = claimLease
        try await database.migrate(scope: "registration", Self.migrations)
    }

    // MARK: Devices

    public func register(app: String, _ r: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord {
        let logger = logger
        return try await database.withTransaction { db in
            // Registrations of one token take turns, so two replicas cannot both keep it.
            try await db.run("SELECT pg_advisory_xact_lock(hashtext(\(app)), hashtext(\(r.token)))", logger: logger)
            if let identity {
                // The device of this id and any holding this token, locked for this transaction.
                let rows = try await db.run("""
                    SELECT d.deviceId, d.userId, p.pushId FROM devices d LEFT JOIN pushIds p ON p.app = d.app AND p.deviceId = d.deviceId
                    WHERE d.app = \(app) AND d.deviceId IN (
                        SELECT deviceId FROM devices WHERE app = \(app) AND deviceId = \(r.deviceId)
                        UNION ALL SELECT deviceId FROM devices WHERE app = \(app) AND token = \(r.token))
                    FOR UPDATE OF d
                    """, logger: logger)
                var owners: [(deviceId: String, userId: String?, pushId: String?)] = []
                for (id, userId, pushId) in try rows.decode((String, String?, String?).self) { owners.append((id, userId, pushId)) }
                try Self.refuseTakeover(of: owners, by: identity)
            }
            try await db.run("""
                DELETE FROM pushIds WHERE app = \(app) AND deviceId IN (SELECT deviceId FROM devices WHERE app = \(app) AND token = \(r.token) AND deviceId <> \(r.deviceId))
                """, logger: logger)
            try await db.run("DELETE FROM devices WHERE app = \(app) AND token = \(r.token) AND deviceId <> \(r.deviceId)", logger: logger)
            let rows = try await db.run("""
                INSERT INTO devices (app, deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt)
                VALUES (\(app), \(r.deviceId), \(r.platform.rawValue), \(r.token), \(r.os.rawValue), \(r.userId), \(r.locale),
                        \(r.key?.keyId), \(r.key?.p256dh), \(r.key?.auth), \(now), \(now), \(now))
                ON CONFLICT (app, deviceId) DO UPDATE SET platform = excluded.platform, token = excluded.token, os = excluded.os,
                    userId = excluded.userId, locale = excluded.locale, keyId = excluded.keyId, p256dh = excluded.p256dh,
                    auth = excluded.auth, updatedAt = excluded.updatedAt, lastSeenAt = excluded.lastSeenAt
                RETURNING createdAt
                """, logger: logger)
            var createdAt = now
            for stored in try rows.decode(Date.self) { createdAt = stored }
            try await db.run("DELETE FROM pushIds WHERE app = \(app) AND deviceId = \(r.deviceId)", logger: logger)
            let pushIds = Set(r.pushIds).sorted()
            if !pushIds.isEmpty {
                try await db.run("""
                    INSERT INTO pushIds (app, deviceId, pushId) SELECT \(app), \(r.deviceId), unnest(\(pushIds)::text[]) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            return DeviceRecord(registration: r, createdAt: createdAt, updatedAt: now, lastSeenAt: now)
        }
    }

    public func device(app: String, deviceId: String) async throws -> DeviceRecord? {
        let rows = try await database.query("""
            SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt
            FROM devices WHERE app = \(app) AND deviceId = \(deviceId)
            """, logger: logger)
        var record: DeviceRecord?
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt)
            in try rows.decode((String, String, String, String, String?, String?, String?, String?, String?, Date, Date, Date).self) {
            var pushIds: [String] = []
            for pushId in try await database.query(
                "SELECT pushId FROM pushIds WHERE app = \(app) AND deviceId = \(id) ORDER BY pushId", logger: logger).decode(String.self) {
                pushIds.append(pushId)
            }
            let key = keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }
            let registration = DeviceRegistration(
                deviceId: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, pushIds: pushIds, locale: locale, key: key)
            record = DeviceRecord(registration: registration, createdAt: createdAt, updatedAt: updatedAt, lastSeenAt: lastSeenAt)
        }
        return record
    }

    public func unregister(app: String, deviceId: String, userId: String?) async throws -> Unregistration {
        let logger = logger
        return try await database.withTransaction { db in
            var found = false
            var owner: String?
            for current in try await db.run(
                "SELECT userId FROM devices WHERE app = \(app) AND deviceId = \(deviceId) FOR UPDATE", logger: logger).decode(String?.self) {
                found = true
                owner = current
            }
            guard found else { return Unregistration(result: .noDevice, detail: "no device \(deviceId)") }
            if let userId, owner != userId {
                return Unregistration(
                    result: .anotherUsers,
                    detail: "device \(deviceId) belongs to \(owner == nil ? "no user" : "another user"), not \(userId): nothing changed")
            }
            try await Self.delete(db, app: app, deviceId: deviceId, logger: logger)
            return Unregistration(result: .removed, detail: "removed")
        }
    }

    private static func delete(_ db: PostgresConnection, app: String, deviceId: String, logger: Logger) async throws {
        try await db.run("DELETE FROM pushIds WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
        try await db.run("DELETE FROM deviceAddressKeys WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
        try await db.run("DELETE FROM devices WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
    }

    // MARK: Resolution

    /// Answers a batch's lookup on one connection: per app, the address keys (their owners
    /// join the users), the users' devices and sponsees, the push ids' device ids, then the
    /// devices asked for by id; each a single query over an array.
    public func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory {
        let logger = logger
        return try await database.withConnection { db in
            var directory = AudienceDirectory()
            let apps = Set(lookup.users.keys).union(lookup.pushIds.keys).union(lookup.deviceIds.keys).union(lookup.addresses.keys)
            for app in apps.sorted() {
                var users = lookup.users[app] ?? []
                let addresses = (lookup.addresses[app] ?? []).sorted()
                if !addresses.isEmpty {
                    let rows = try await db.run(
                        "SELECT emailAddressId, keyId, publicKey, ownerUserId FROM addressKeys WHERE app = \(app) AND emailAddressId = ANY(\(addresses))",
                        logger: logger)
                    for (address, keyId, publicKey, owner) in try rows.decode((String, String, String, String?).self) {
                        directory.add(AddressKey(emailAddressId: address, keyId: keyId, publicKey: publicKey), owner: owner, deviceId: nil, app: app)
                        if let owner { users.insert(owner) }
                    }
                    let devices = try await db.run(
                        "SELECT emailAddressId, deviceId, keyId, publicKey, ownerUserId FROM deviceAddressKeys WHERE app = \(app) AND emailAddressId = ANY(\(addresses))",
                        logger: logger)
                    for (address, deviceId, keyId, publicKey, owner) in try devices.decode((String, String, String, String, String?).self) {
                        directory.add(AddressKey(emailAddressId: address, keyId: keyId, publicKey: publicKey), owner: owner, deviceId: deviceId, app: app)
                        if let owner { users.insert(owner) }
                    }
                }
                if !users.isEmpty {
                    let list = users.sorted()
                    directory.add(try await Self.targets(db, app: app, column: .userId, list, logger: logger), app: app)
                    let rows = try await db.run("SELECT sponseeId, type, value FROM sponsees WHERE app = \(app) AND sponseeId = ANY(\(list))", logger: logger)
                    for (id, type, value) in try rows.decode((String, Int, String).self) {
                        directory.add(Sponsee(sponseeId: id, type: type, value: value), app: app)
                    }
                }
                var ids = lookup.deviceIds[app] ?? []
                let pushIds = (lookup.pushIds[app] ?? []).sorted()
                if !pushIds.isEmpty {
                    let rows = try await db.run("SELECT pushId, deviceId FROM pushIds WHERE app = \(app) AND pushId = ANY(\(pushIds))", logger: logger)
                    for (pushId, deviceId) in try rows.decode((String, String).self) {
                        directory.add(pushId: pushId, deviceId: deviceId, app: app)
                        ids.insert(deviceId)
                    }
                }
                if !ids.isEmpty {
                    directory.add(try await Self.targets(db, app: app, column: .deviceId, ids.sorted(), logger: logger), app: app)
                }
            }
            return directory
        }
    }

    enum TargetColumn { case userId, deviceId }

    private static func targets(_ db: PostgresConnection, app: String, column: TargetColumn, _ values: [String], logger: Logger) async throws -> [DeviceTarget] {
        let rows: [PostgresRow]
        switch column {
        case .userId:
            rows = try await db.run("""
                SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth FROM devices WHERE app = \(app) AND userId = ANY(\(values))
                """, logger: logger)
        case .deviceId:
            rows = try await db.run("""
                SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth FROM devices WHERE app = \(app) AND deviceId = ANY(\(values))
                """, logger: logger)
        }
        var targets: [DeviceTarget] = []
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth)
            in try rows.decode((String, String, String, String, String?, String?, String?, String?, String?).self) {
            targets.append(DeviceTarget(
                id: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, locale: locale, key: keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }))
        }
        return targets
    }

    // MARK: Email-address keys and sponsees

    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey {
        if let deviceId {
            try await database.query("""
                INSERT INTO deviceAddressKeys (app, emailAddressId, deviceId, keyId, publicKey, ownerUserId, updatedAt)
                VALUES (\(app), \(emailAddressId), \(deviceId), \(keyId), \(publicKeyDER), \(ownerUserId), \(now))
                ON CONFLICT (app, emailAddressId, deviceId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                    ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                """, logger: logger)
            return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
        }
        try await database.query("""
            INSERT INTO addressKeys (app, emailAddressId, keyId, publicKey, ownerUserId, updatedAt)
            VALUES (\(app), \(emailAddressId), \(keyId), \(publicKeyDER), \(ownerUserId), \(now))
            ON CONFLICT (app, emailAddressId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
            """, logger: logger)
        return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
    }

    public func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee {
        try await database.query("""
            INSERT INTO sponsees (app, sponseeId, type, value, updatedAt) VALUES (\(app), \(sponsee.sponseeId), \(sponsee.type), \(sponsee.value), \(now))
            ON CONFLICT (app, sponseeId) DO UPDATE SET type = excluded.type, value = excluded.value, updatedAt = excluded.updatedAt
            """, logger: logger)
        return sponsee
    }

    // MARK: Idempotency

    /// Claims the batch in one statement: an insert that only succeeds for an event nobody
    /// knows (the primary key decides between replicas), read together with the claim of each
    /// event it did not insert. A claim another replica holds within its lease is
    /// `heldElsewhere`; an older one is taken over (compare-and-set on its holder). Within
    /// this process, an event is reserved in the in-flight set before the statement, so two
    /// tasks claiming it at once cannot both take the row this process holds.
    public func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim] {
        var firstIndex: [EventKey: Int] = [:]
        for (index, event) in events.enumerated() where firstIndex[event] == nil { firstIndex[event] = index }
        let unique = firstIndex.sorted { $0.value < $1.value }.map(\.key)
        // Reserved here first: an event another task of this process is claiming or handling
        // now is not this call's to claim, whatever the row says.
        let reserved: Set<EventKey> = inFlight.withLock { inFlight in
            Set(unique.filter { inFlight.insert($0).inserted })
        }
        var decided: [EventKey: EventClaim] = [:]
        do {
            let mine = unique.filter { reserved.contains($0) }
            if !mine.isEmpty { decided = try await decide(mine, now: now) }
            let others = unique.filter { !reserved.contains($0) }
            if !others.isEmpty { decided.merge(try await heldHere(others, now: now)) { first, _ in first } }
        } catch {
            inFlight.withLock { inFlight in for event in reserved { inFlight.remove(event) } }
            throw error
        }
        inFlight.withLock { inFlight in
            for event in reserved where decided[event] != .claimed { inFlight.remove(event) }
        }
        return events.enumerated().map { index, event in
            guard firstIndex[event] == index else { return .inFlight }  // a second copy in this batch
            return decided[event] ?? .heldElsewhere
        }
    }

    /// The database's answer for events this process reserved: claimed (inserted now, a claim
    /// of this process a failed release left, or one taken over from a replica whose lease
    /// ended), processed, or held by another replica within its lease.
    private func decide(_ events: [EventKey], now: Date) async throws -> [EventKey: EventClaim] {
        var states: [EventKey: (inserted: Bool, claimed: Bool?, holder: String?, claimedAt: Date?)] = [:]
        let rows = try await database.query("""
            WITH input AS (SELECT * FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[]) AS t(app, eventId)),
            inserted AS (
                INSERT INTO processedEvents (app, eventId, processedAt, claimed, claimedBy, claimedAt)
                SELECT app, eventId, \(now), true, \(instance), \(now) FROM input
                ON CONFLICT (app, eventId) DO NOTHING RETURNING app, eventId)
            SELECT i.app, i.eventId, inserted.eventId IS NOT NULL, p.claimed, p.claimedBy, p.claimedAt
            FROM input i
            LEFT JOIN inserted ON inserted.app = i.app AND inserted.eventId = i.eventId
            LEFT JOIN processedEvents p ON p.app = i.app AND p.eventId = i.eventId
            """, logger: logger)
        for (app, eventId, inserted, claimed, holder, claimedAt) in try rows.decode((String, String, Bool, Bool?, String?, Date?).self) {
            states[EventKey(app: app, eventId: eventId)] = (inserted, claimed, holder, claimedAt)
        }
        var decided: [EventKey: EventClaim] = [:]
        for event in events {
            let state = states[event]
            if state?.inserted == true || state?.holder == instance {
                decided[event] = .claimed
            } else if state?.claimed == false {
                decided[event] = .processed
            } else if let claimedAt = state?.claimedAt, now.timeIntervalSince(claimedAt) < claimLease {
                decided[event] = .heldElsewhere
            } else {
                decided[event] = try await takeOver(event, from: state?.holder, now: now) ? .claimed : .heldElsewhere
            }
        }
        return decided
    }

    /// For events another task of this process is claiming or handling: still `inFlight`
    /// unless the row says otherwise (processed, or taken over by another replica whose
    /// lease runs). Reads only, so it never races the task that holds them.
    private func heldHere(_ events: [EventKey], now: Date) async throws -> [EventKey: EventClaim] {
        var decided = Dictionary(uniqueKeysWithValues: events.map { ($0, EventClaim.inFlight) })
        let rows = try await database.query("""
            SELECT p.app, p.eventId, p.claimed, p.claimedBy, p.claimedAt
            FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[]) AS t(app, eventId)
            JOIN processedEvents p ON p.app = t.app AND p.eventId = t.eventId
            """, logger: logger)
        for (app, eventId, claimed, holder, claimedAt) in try rows.decode((String, String, Bool, String?, Date?).self) {
            let event = EventKey(app: app, eventId: eventId)
            if !claimed {
                decided[event] = .processed
            } else if holder != instance, let claimedAt, now.timeIntervalSince(claimedAt) < claimLease {
                decided[event] = .heldElsewhere
            }
        }
        return decided
    }

    /// Takes over the expired claim of `holder` (a replica that died), unless another replica
    /// did first or the event was finished meanwhile.
    private func takeOver(_ event: EventKey, from holder: String?, now: Date) async throws -> Bool {
        let rows = try await database.query("""
            UPDATE processedEvents SET claimedBy = \(instance), claimedAt = \(now)
            WHERE app = \(event.app) AND eventId = \(event.eventId) AND claimed AND claimedBy IS NOT DISTINCT FROM \(holder)
            RETURNING 1
            """, logger: logger)
        for _ in try rows.decode(Int.self) { return true }
        return false
    }

    public func markProcessed(_ events: [EventKey], at now: Date) async throws {
        guard !events.isEmpty else { return }
        try await database.query("""
            INSERT INTO processedEvents (app, eventId, processedAt, claimed, claimedBy, claimedAt)
            SELECT DISTINCT app, eventId, \(now)::timestamptz, false, NULL::text, NULL::timestamptz
            FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[]) AS t(app, eventId)
            ON CONFLICT (app, eventId) DO UPDATE SET claimed = false, processedAt = excluded.processedAt, claimedBy = NULL, claimedAt = NULL
            """, logger: logger)
        await forget(events)
    }

    /// Ends this process's claims: the rows go, so the next copy (here or at another replica)
    /// is claimed at once.
    public func release(_ events: [EventKey]) async {
        guard !events.isEmpty else { return }
        do {
            try await database.query("""
                DELETE FROM processedEvents
                WHERE (app, eventId) IN (SELECT * FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[]))
                    AND claimed AND claimedBy = \(instance)
                """, logger: logger)
        } catch {
            // The claims expire after the lease instead.
            logger.warning("could not release event claims", metadata: ["error": "\(String(reflecting: error))", "events": "\(events.count)"])
        }
        await forget(events)
    }

    private func forget(_ events: [EventKey]) async {
        inFlight.withLock { inFlight in for event in events { inFlight.remove(event) } }
    }

    public func isProcessed(app: String, eventId: String) async throws -> Bool {
        let rows = try await database.query(
            "SELECT 1 FROM processedEvents WHERE app = \(app) AND eventId = \(eventId) AND NOT claimed", logger: logger)
        for _ in try rows.decode(Int.self) { return true }
        return false
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

    // MARK: Outcomes

    /// Records a batch in one transaction: the logged events it touches are locked first
    /// (in one order), so of two batches finishing one event the second counts after the
    /// first committed and exactly one sees it complete; then the outcomes, folded per
    /// delivery first (the latest by time, and their count; one statement may change a row
    /// once); then the events' counts.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        struct Folded {
            var latest: Outcome
            var count: Int
        }
        var folded: [String: Folded] = [:]
        var order: [String] = []
        for outcome in outcomes {
            let key = outcome.app + "\u{1}" + outcome.deliveryId
            if var existing = folded[key] {
                existing.count += 1
                if outcome.at >= existing.latest.at { existing.latest = outcome }
                folded[key] = existing
            } else {
                folded[key] = Folded(latest: outcome, count: 1)
                order.append(key)
            }
        }
        guard !order.isEmpty else { return [] }
        let rows = order.compactMap { folded[$0] }
        let latest = rows.map(\.latest)
        let touched = EventLogCounting.events(of: outcomes)
        let logger = logger
        return try await database.withTransaction { db in
            var logged: [EventKey: (source: String, kind: String, acceptedAt: Date, deliveries: Int, completedAt: Date?)] = [:]
            if !touched.isEmpty {
                for (app, eventId, source, kind, acceptedAt, deliveries, completedAt) in try await db.run("""
                    SELECT app, eventId, source, kind, acceptedAt, deliveries, completedAt FROM eventLog
                    WHERE (app, eventId) IN (SELECT * FROM unnest(\(touched.map(\.app))::text[], \(touched.map(\.eventId))::text[]))
                    ORDER BY app, eventId FOR UPDATE
                    """, logger: logger).decode((String, String, String, String, Date, Int, Date?).self) {
                    logged[EventKey(app: app, eventId: eventId)] = (source, kind, acceptedAt, deliveries, completedAt)
                }
            }
            try await db.run("""
                INSERT INTO outcomes (app, deliveryId, eventId, status, reason, providerCode, at, updates, platform, deviceId)
                SELECT app, deliveryId, eventId, status, CASE WHEN hasReason THEN reason END, CASE WHEN hasCode THEN providerCode END, at, updates,
                    NULLIF(platform, ''), CASE WHEN hasDevice THEN deviceId END
                FROM unnest(\(latest.map(\.app))::text[], \(latest.map(\.deliveryId))::text[], \(latest.map(\.eventId))::text[],
                            \(latest.map(\.status.rawValue))::text[], \(latest.map { $0.reason ?? "" })::text[], \(latest.map { $0.reason != nil })::bool[],
                            \(latest.map { $0.providerCode ?? "" })::text[], \(latest.map { $0.providerCode != nil })::bool[],
                            \(latest.map(\.at))::timestamptz[], \(rows.map { Int64($0.count) })::bigint[],
                            \(latest.map { $0.platform?.rawValue ?? "" })::text[], \(latest.map { $0.deviceId ?? "" })::text[], \(latest.map { $0.deviceId != nil })::bool[])
                    AS t(app, deliveryId, eventId, status, reason, hasReason, providerCode, hasCode, at, updates, platform, deviceId, hasDevice)
                ON CONFLICT (app, deliveryId) DO UPDATE SET
                    updates = outcomes.updates + excluded.updates,
                    status = CASE WHEN excluded.at >= outcomes.at THEN excluded.status ELSE outcomes.status END,
                    reason = CASE WHEN excluded.at >= outcomes.at THEN excluded.reason ELSE outcomes.reason END,
                    providerCode = CASE WHEN excluded.at >= outcomes.at THEN excluded.providerCode ELSE outcomes.providerCode END,
                    platform = COALESCE(excluded.platform, outcomes.platform),
                    deviceId = COALESCE(excluded.deviceId, outcomes.deviceId),
                    at = GREATEST(outcomes.at, excluded.at)
                """, logger: logger)
            guard !logged.isEmpty else { return [] }
            let keys = logged.keys.sorted { ($0.app, $0.eventId) < ($1.app, $1.eventId) }
            var grouped: [EventKey: [(OutcomeStatus, Int)]] = [:]
            for (app, eventId, status, count) in try await db.run("""
                SELECT app, eventId, status, count(*) FROM outcomes
                WHERE (app, eventId) IN (SELECT * FROM unnest(\(keys.map(\.app))::text[], \(keys.map(\.eventId))::text[]))
                GROUP BY app, eventId, status
                """, logger: logger).decode((String, String, String, Int).self) {
                grouped[EventKey(app: app, eventId: eventId), default: []].append((OutcomeStatus(rawValue: status) ?? .failed, count))
            }
            let now = Date()
            var completed: [CompletedEvent] = []
            var counts: [EventCounts] = []
            var progress: [String] = []
            var completedAt: [Date?] = []
            for key in keys {
                let event = logged[key]!
                let count = EventCounts(grouped[key] ?? [])
                let finished = event.completedAt == nil && count.final >= event.deliveries
                counts.append(count)
                progress.append(count.progress(deliveries: event.deliveries).rawValue)
                completedAt.append(finished ? now : event.completedAt)
                if finished {
                    completed.append(CompletedEvent(app: key.app, summary: EventSummary(
                        eventId: key.eventId, source: event.source, kind: event.kind, acceptedAt: event.acceptedAt, deliveries: event.deliveries,
                        counts: count, completedAt: now)))
                }
            }
            try await db.run("""
                UPDATE eventLog SET delivered = t.delivered, failed = t.failed, expired = t.expired, revoked = t.revoked, filtered = t.filtered,
                    retrying = t.retrying, status = t.status, completedAt = CASE WHEN t.hasCompleted THEN t.completedAt END
                FROM unnest(\(keys.map(\.app))::text[], \(keys.map(\.eventId))::text[], \(counts.map { Int64($0.delivered) })::bigint[],
                            \(counts.map { Int64($0.failed) })::bigint[], \(counts.map { Int64($0.expired) })::bigint[], \(counts.map { Int64($0.revoked) })::bigint[],
                            \(counts.map { Int64($0.filtered) })::bigint[], \(counts.map { Int64($0.retrying) })::bigint[], \(progress)::text[],
                            \(completedAt.map { $0 ?? now })::timestamptz[], \(completedAt.map { $0 != nil })::bool[])
                    AS t(app, eventId, delivered, failed, expired, revoked, filtered, retrying, status, completedAt, hasCompleted)
                WHERE eventLog.app = t.app AND eventLog.eventId = t.eventId
                """, logger: logger)
            return completed
        }
    }

    // MARK: Event log

    public func logEvents(_ events: [LoggedEvent]) async throws {
        var seen = Set<EventKey>()
        let events = events.filter { seen.insert(EventKey(app: $0.app, eventId: $0.eventId)).inserted }
            .sorted { ($0.app, $0.eventId) < ($1.app, $1.eventId) }
        guard !events.isEmpty else { return }
        try await database.query("""
            INSERT INTO eventLog (app, eventId, source, kind, acceptedAt, deliveries)
            SELECT * FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[], \(events.map(\.source))::text[],
                                 \(events.map(\.kind))::text[], \(events.map(\.acceptedAt))::timestamptz[], \(events.map { Int64($0.deliveries) })::bigint[])
            ORDER BY 1, 2
            ON CONFLICT (app, eventId) DO UPDATE SET deliveries = excluded.deliveries
            """, logger: logger)
    }

    /// A cursor's position here: microseconds since 1970, exact both ways.
    private static func micros(_ cursor: PageCursor?) throws -> Int64? {
        guard let cursor else { return nil }
        guard let micros = Int64(cursor.position) else {
            throw CommandError(code: "invalid-cursor", detail: "cursor: not a cursor this list answered with")
        }
        return micros
    }

    public func events(app: String, _ query: EventQuery) async throws -> EventPage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        let micros = try Self.micros(cursor)
        let status = query.status?.rawValue
        let rows = try await database.query("""
            SELECT eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt,
                (extract(epoch FROM acceptedAt) * 1000000)::bigint
            FROM eventLog
            WHERE app = \(app) AND (\(query.eventId)::text IS NULL OR eventId = \(query.eventId)) AND (\(status)::text IS NULL OR status = \(status)) AND (\(query.source)::text IS NULL OR source = \(query.source))
                AND (\(query.kind)::text IS NULL OR kind = \(query.kind))
                AND (\(query.since)::timestamptz IS NULL OR acceptedAt >= \(query.since)) AND (\(query.until)::timestamptz IS NULL OR acceptedAt < \(query.until))
                AND (\(micros)::bigint IS NULL OR (acceptedAt, eventId) < ('epoch'::timestamptz + \(micros)::bigint * interval '1 microsecond', \(cursor?.id)::text))
            ORDER BY acceptedAt DESC, eventId DESC LIMIT \(Int64(query.limit + 1))
            """, logger: logger)
        var events: [EventSummary] = []
        var last: PageCursor?
        for (eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt, position)
            in try rows.decode((String, String, String, Date, Int, Int, Int, Int, Int, Int, Int, Date?, Int64).self) {
            guard events.count < query.limit else { return EventPage(events: events, nextCursor: last?.encoded) }
            var counts = EventCounts()
            (counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying) = (delivered, failed, expired, revoked, filtered, retrying)
            events.append(EventSummary(eventId: eventId, source: source, kind: kind, acceptedAt: acceptedAt, deliveries: deliveries, counts: counts, completedAt: completedAt))
            last = PageCursor(position: String(position), id: eventId)
        }
        return EventPage(events: events, nextCursor: nil)
    }

    public func devices(app: String, _ query: DeviceQuery) async throws -> DevicePage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        let micros = try Self.micros(cursor)
        let platform = query.platform?.rawValue
        let lastOutcome = query.lastOutcome?.rawValue
        let rows = try await database.query("""
            SELECT deviceId, (extract(epoch FROM createdAt) * 1000000)::bigint FROM devices d
            WHERE app = \(app) AND (\(query.userId)::text IS NULL OR userId = \(query.userId)) AND (\(platform)::text IS NULL OR platform = \(platform))
                AND (\(query.registeredSince)::timestamptz IS NULL OR createdAt >= \(query.registeredSince))
                AND (\(query.tokenSuffix)::text IS NULL OR right(token, char_length(\(query.tokenSuffix))) = \(query.tokenSuffix))
                AND (\(lastOutcome)::text IS NULL
                     OR (SELECT o.status FROM outcomes o WHERE o.app = d.app AND o.deviceId = d.deviceId ORDER BY o.at DESC LIMIT 1) = \(lastOutcome))
                AND (\(micros)::bigint IS NULL OR (createdAt, deviceId) < ('epoch'::timestamptz + \(micros)::bigint * interval '1 microsecond', \(cursor?.id)::text))
            ORDER BY createdAt DESC, deviceId DESC LIMIT \(Int64(query.limit + 1))
            """, logger: logger)
        var page: [(id: String, position: Int64)] = []
        for (id, position) in try rows.decode((String, Int64).self) { page.append((id, position)) }
        let more = page.count > query.limit
        page = Array(page.prefix(query.limit))
        let ids = page.map(\.id)
        guard !ids.isEmpty else { return DevicePage(devices: [], nextCursor: nil) }
        var pushIds: [String: [String]] = [:]
        for (deviceId, pushId) in try await database.query(
            "SELECT deviceId, pushId FROM pushIds WHERE app = \(app) AND deviceId = ANY(\(ids)::text[]) ORDER BY pushId", logger: logger).decode((String, String).self) {
            pushIds[deviceId, default: []].append(pushId)
        }
        var outcomes: [String: DeviceOutcome] = [:]
        for (deviceId, eventId, deliveryId, status, providerCode, at) in try await database.query("""
            SELECT DISTINCT ON (deviceId) deviceId, eventId, deliveryId, status, providerCode, at FROM outcomes
            WHERE app = \(app) AND deviceId = ANY(\(ids)::text[]) ORDER BY deviceId, at DESC
            """, logger: logger).decode((String, String, String, String, String?, Date).self) {
            outcomes[deviceId] = DeviceOutcome(eventId: eventId, deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, providerCode: providerCode, at: at)
        }
        var records: [String: DeviceRecord] = [:]
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt) in try await database.query("""
            SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt
            FROM devices WHERE app = \(app) AND deviceId = ANY(\(ids)::text[])
            """, logger: logger).decode((String, String, String, String, String?, String?, String?, String?, String?, Date, Date, Date).self) {
            let key = keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }
            let registration = DeviceRegistration(
                deviceId: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, pushIds: pushIds[id] ?? [], locale: locale, key: key)
            records[id] = DeviceRecord(registration: registration, createdAt: createdAt, updatedAt: updatedAt, lastSeenAt: lastSeenAt, lastOutcome: outcomes[id])
        }
        let next = more ? page.last.map { PageCursor(position: String($0.position), id: $0.id).encoded } : nil
        return DevicePage(devices: ids.compactMap { records[$0] }, nextCursor: next)
    }

    public func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats {
        // Grouped by the minute as a time (the session's zone is UTC's for whole minutes).
        var accepted: [(minute: Date, count: Int)] = []
        for (minute, count) in try await database.query("""
            SELECT date_trunc('minute', acceptedAt), count(*) FROM eventLog
            WHERE app = \(app) AND acceptedAt >= \(since) AND acceptedAt < \(until) GROUP BY 1
            """, logger: logger).decode((Date, Int).self) {
            accepted.append((minute, count))
        }
        var outcomes: [(minute: Date, platform: String?, status: OutcomeStatus, count: Int)] = []
        for (minute, platform, status, count) in try await database.query("""
            SELECT date_trunc('minute', at), platform, status, count(*) FROM outcomes
            WHERE app = \(app) AND at >= \(since) AND at < \(until) AND eventId NOT LIKE 'callback:%' GROUP BY 1, 2, 3
            """, logger: logger).decode((Date, String?, String, Int).self) {
            if let status = OutcomeStatus(rawValue: status) { outcomes.append((minute, platform, status, count)) }
        }
        return DeliveryStats(since: since, until: until, accepted: accepted, outcomes: outcomes)
    }

    public func eventStatus(app: String, eventId: String) async throws -> EventStatus? {
        let resolved = try await isProcessed(app: app, eventId: eventId)
        var deliveries: [DeliveryStatus] = []
        let rows = try await database.query("""
            SELECT deliveryId, status, reason, providerCode, at, updates FROM outcomes WHERE app = \(app) AND eventId = \(eventId) ORDER BY deliveryId
            """, logger: logger)
        for (deliveryId, status, reason, providerCode, at, updates) in try rows.decode((String, String, String?, String?, Date, Int).self) {
            deliveries.append(DeliveryStatus(
                deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, reason: reason, providerCode: providerCode, at: at, updates: updates))
        }
        guard resolved || !deliveries.isEmpty else { return nil }
        let summary = try await events(app: app, EventQuery(eventId: eventId, limit: 1)).events.first
        return EventStatus(eventId: eventId, resolved: resolved, deliveries: deliveries, summary: summary)
    }

    public func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome] {
        let rows = try await database.query("""
            SELECT eventId, deliveryId, status, providerCode, at FROM outcomes WHERE app = \(app) AND deviceId = \(deviceId) ORDER BY at DESC LIMIT \(Int64(limit))
            """, logger: logger)
        var outcomes: [DeviceOutcome] = []
        for (eventId, deliveryId, status, providerCode, at) in try rows.decode((String, String, String, String?, Date).self) {
            outcomes.append(DeviceOutcome(eventId: eventId, deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, providerCode: providerCode, at: at))
        }
        return outcomes
    }

    // MARK: Revocation

    public func revoke(_ revocation: TokenRevoked, now: Date) async throws -> RevocationResult {
        let logger = logger
        return try await database.withTransaction { db in
            let result: RevocationResult
            if revocation.platform == .webhook {
                result = try await Self.revokeForwarded(db, revocation, logger: logger)
            } else {
                var found: (String, Date, String?)?
                let rows = try await db.run("""
                    SELECT deviceId, updatedAt, userId FROM devices WHERE app = \(revocation.app) AND platform = \(revocation.platform.rawValue) AND token = \(revocation.token) FOR UPDATE
                    """, logger: logger)
                for row in try rows.decode((String, Date, String?).self) { found = row }
                if let (deviceId, updatedAt, userId) = found {
                    if updatedAt > revocation.failedSendAt {
                        result = .renewed(deviceId: deviceId)
                    } else {
                        try await Self.delete(db, app: revocation.app, deviceId: deviceId, logger: logger)
                        result = .removed(deviceId: deviceId, userId: userId)
                    }
                } else {
                    result = .unknown
                }
            }
            try await db.run("""
                INSERT INTO revokedTokens (app, platform, token, deviceId, reason, failedSendAt, revokedAt, result)
                VALUES (\(revocation.app), \(revocation.platform.rawValue), \(revocation.token), \(revocation.deviceId), \(revocation.reason),
                        \(revocation.failedSendAt), \(now), \(result.audit))
                """, logger: logger)
            return result
        }
    }

    private static func revokeForwarded(_ db: PostgresConnection, _ revocation: TokenRevoked, logger: Logger) async throws -> RevocationResult {
        guard let id = revocation.deviceId else { return .unknown }
        let sponsee = id.hasPrefix(AudienceResolver.sponseePrefix) ? String(id.dropFirst(AudienceResolver.sponseePrefix.count)) : nil
        let rows: [PostgresRow]
        if let sponsee {
            rows = try await db.run("SELECT updatedAt, NULL::TEXT FROM sponsees WHERE app = \(revocation.app) AND sponseeId = \(sponsee) FOR UPDATE", logger: logger)
        } else {
            rows = try await db.run("SELECT updatedAt, userId FROM devices WHERE app = \(revocation.app) AND deviceId = \(id) FOR UPDATE", logger: logger)
        }
        var stored: (Date, String?)?
        for row in try rows.decode((Date, String?).self) { stored = row }
        guard let (updatedAt, userId) = stored else { return .unknown }
        if updatedAt > revocation.failedSendAt { return .renewed(deviceId: id) }
        if let sponsee {
            try await db.run("DELETE FROM sponsees WHERE app = \(revocation.app) AND sponseeId = \(sponsee)", logger: logger)
        } else {
            try await delete(db, app: revocation.app, deviceId: id, logger: logger)
        }
        return .removed(deviceId: id, userId: userId)
    }

    public func revocations(app: String, token: String) async throws -> [RevocationRecord] {
        var records: [RevocationRecord] = []
        let rows = try await database.query(
            "SELECT reason, result, revokedAt FROM revokedTokens WHERE app = \(app) AND token = \(token) ORDER BY revokedAt DESC", logger: logger)
        for (reason, result, revokedAt) in try rows.decode((String, String, Date).self) {
            records.append(RevocationRecord(reason: reason, result: result, revokedAt: revokedAt))
        }
        return records
    }

    // MARK: Schema

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
    ]
}
