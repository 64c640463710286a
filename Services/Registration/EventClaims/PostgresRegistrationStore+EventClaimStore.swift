import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO
import Synchronization

/// The store as a `EventClaimStore`: claiming an event before resolving it, so that a repeated event is resolved once.
extension PostgresRegistrationStore {
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
    func decide(_ events: [EventKey], now: Date) async throws -> [EventKey: EventClaim] {
        var states: [UUID: (inserted: Bool, claimed: Bool?, holder: Int64?, claimedAt: Int64?)] = [:]
        let at = StoredTime.millis(now)
        let logger = logger
        let instance = instance
        // One transaction: the older generations, read first, cannot be rotated away before
        // the insert into the current one (a rotation waits for the locks both statements take).
        let processedBefore = try await database.withTransaction { db in
            var before = Set<UUID>()
            let keys = events.map(\.uuid)
            for key in try await db.run(PostgresQuery(unsafeSQL: IdempotencyWindow.olderLookup("= ANY($1::uuid[])"), binds: try binds(keys)), logger: logger).decode(UUID.self) {
                before.insert(key)
            }
            let fresh = keys.filter { !before.contains($0) }
            guard !fresh.isEmpty else { return before }
            let rows = try await db.run("""
                WITH input AS (SELECT * FROM unnest(\(fresh)::uuid[]) AS t(key)),
                inserted AS (
                    INSERT INTO processedEvents (key, claimedBy, claimedAt)
                    SELECT key, \(instance), \(at) FROM input
                    ON CONFLICT (key) DO NOTHING RETURNING key)
                SELECT i.key, inserted.key IS NOT NULL, CASE WHEN p.key IS NOT NULL THEN p.claimedBy IS NOT NULL END, p.claimedBy, p.claimedAt
                FROM input i
                LEFT JOIN inserted ON inserted.key = i.key
                LEFT JOIN processedEvents p ON p.key = i.key
                """, logger: logger)
            for (key, inserted, claimed, holder, claimedAt) in try rows.decode((UUID, Bool, Bool?, Int64?, Int64?).self) {
                states[key] = (inserted, claimed, holder, claimedAt)
            }
            return before
        }
        for key in processedBefore { states[key] = (false, false, nil, nil) }
        var decided: [EventKey: EventClaim] = [:]
        for event in events {
            let state = states[event.uuid]
            if state?.inserted == true || state?.holder == instance {
                decided[event] = .claimed
            } else if state?.claimed == false {
                decided[event] = .processed
            } else if let claimedAt = state?.claimedAt, now.timeIntervalSince(StoredTime.date(claimedAt)) < claimLease {
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
    func heldHere(_ events: [EventKey], now: Date) async throws -> [EventKey: EventClaim] {
        var decided = Dictionary(uniqueKeysWithValues: events.map { ($0, EventClaim.inFlight) })
        let byKey = Dictionary(events.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT key, claimedBy, claimedAt FROM processedEvents WHERE key = ANY($1::uuid[])
            UNION ALL SELECT key, NULL, NULL FROM (\(IdempotencyWindow.olderLookup("= ANY($1::uuid[])"))) older
            """, binds: try binds(Array(byKey.keys))), logger: logger)
        for (key, holder, claimedAt) in try rows.decode((UUID, Int64?, Int64?).self) {
            guard let event = byKey[key] else { continue }
            if holder == nil {
                decided[event] = .processed
            } else if holder != instance, let claimedAt, now.timeIntervalSince(StoredTime.date(claimedAt)) < claimLease {
                decided[event] = .heldElsewhere
            }
        }
        return decided
    }

    /// Takes over the expired claim of `holder` (a replica that died), unless another replica
    /// did first or the event was finished meanwhile.
    func takeOver(_ event: EventKey, from holder: Int64?, now: Date) async throws -> Bool {
        let at = StoredTime.millis(now)
        let rows = try await database.query("""
            UPDATE processedEvents SET claimedBy = \(instance), claimedAt = \(at)
            WHERE key = \(event.uuid) AND claimedBy IS NOT NULL AND claimedBy IS NOT DISTINCT FROM \(holder)
            RETURNING 1
            """, logger: logger)
        for _ in try rows.decode(Int.self) { return true }
        return false
    }

    /// Marks the events processed: a claim row loses its holder (an update of columns no
    /// index holds, so PostgreSQL keeps it in its page).
    public func markProcessed(_ events: [EventKey], at now: Date) async throws {
        guard !events.isEmpty else { return }
        let keys = Array(Set(events.map(\.uuid))).sorted { $0.uuidString < $1.uuidString }
        try await database.query("""
            INSERT INTO processedEvents (key, claimedBy, claimedAt)
            SELECT key, NULL::bigint, NULL::bigint FROM unnest(\(keys)::uuid[]) AS t(key)
            ON CONFLICT (key) DO UPDATE SET claimedBy = NULL, claimedAt = NULL
            """, logger: logger)
        await forget(events)
    }

    /// Ends this process's claims: the rows go, so the next copy (here or at another replica)
    /// is claimed at once.
    public func release(_ events: [EventKey]) async {
        guard !events.isEmpty else { return }
        do {
            try await database.query("""
                DELETE FROM processedEvents WHERE key = ANY(\(events.map(\.uuid))::uuid[]) AND claimedBy = \(instance)
                """, logger: logger)
        } catch {
            // The claims expire after the lease instead.
            logger.warning("could not release event claims", metadata: ["error": "\(String(reflecting: error))", "events": "\(events.count)"])
        }
        await forget(events)
    }

    func forget(_ events: [EventKey]) async {
        inFlight.withLock { inFlight in for event in events { inFlight.remove(event) } }
    }

    public func isProcessed(app: String, eventId: String) async throws -> Bool {
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT 1 FROM processedEvents WHERE key = $1 AND claimedBy IS NULL
            UNION ALL SELECT 1 FROM (\(IdempotencyWindow.olderLookup("= $1"))) older
            """, binds: try binds(EventKey(app: app, eventId: eventId).uuid)), logger: logger)
        for _ in try rows.decode(Int.self) { return true }
        return false
    }

    /// One value bound as a statement's first parameter.
    func binds(_ value: some PostgresEncodable & Sendable) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        try bindings.append(value)
        return bindings
    }
}
