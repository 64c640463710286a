import Foundation
import GRDB
import HeraldModel
import HeraldStorage
import Synchronization

/// The store as a `EventClaimStore`: claiming an event before resolving it, so that a repeated event is resolved once.
extension SQLiteRegistrationStore {
    /// Claims a batch of events in one transaction, so that of two copies of an event only
    /// one fans out, even when both are handled at once. A claim is a `processedEvents` row
    /// not yet marked processed, and the event in this process's in-flight set; a claim row
    /// left by a process that died (not in the set) is taken over, as the broker redelivers
    /// that process's events. Finish with `markProcessed(_:)` or `release(_:)`. Should the
    /// transaction fail (a full disk at its commit), the events it put in the set leave it.
    public func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim] {
        let added = Mutex<[EventKey]>([])
        do {
            return try await database.write { db in
                let before = try db.cachedStatement(sql: "SELECT 1 FROM (\(IdempotencyWindow.olderLookup("= ?1"))) LIMIT 1")
                let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO processedEvents (key, claimed) VALUES (?, 1)")
                let state = try db.cachedStatement(sql: "SELECT claimed FROM processedEvents WHERE key = ?")
                return try self.inFlight.withLock { inFlight in
                    try events.map { event in
                        let key = event.digest
                        // Older generations hold only processed ids.
                        if try Bool.fetchOne(before, arguments: [key]) == true { return .processed }
                        try insert.execute(arguments: [key])
                        if db.changesCount == 0 {
                            let claimed = try Bool.fetchOne(state, arguments: [key]) ?? false
                            if !claimed { return .processed }
                            if inFlight.contains(event) { return .inFlight }
                        }
                        if inFlight.insert(event).inserted { added.withLock { $0.append(event) } }
                        return .claimed
                    }
                }
            }
        } catch {
            await release(added.withLock { $0 })
            throw error
        }
    }

    /// Marks claimed events processed (one transaction) and ends their claims.
    public func markProcessed(_ events: [EventKey], at now: Date) async throws {
        try await database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO processedEvents (key, claimed) VALUES (?, 0) ON CONFLICT (key) DO UPDATE SET claimed = 0
                """)
            for event in events { try statement.execute(arguments: [event.digest]) }
        }
        await release(events)
    }

    /// Ends claims without marking the events processed (their outputs were not confirmed):
    /// the next copy of each is claimed again.
    public func release(_ events: [EventKey]) async {
        inFlight.withLock { inFlight in for event in events { inFlight.remove(event) } }
    }

    /// Whether the event's deliveries were published (a claim in progress does not count).
    public func isProcessed(app: String, eventId: String) async throws -> Bool {
        try await database.read { db in
            try Self.isProcessed(db, EventKey(app: app, eventId: eventId))
        }
    }

    /// Whether any generation has the event processed.
    static func isProcessed(_ db: Database, _ event: EventKey) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT 1 FROM processedEvents WHERE key = ?1 AND claimed = 0 UNION ALL SELECT 1 FROM (\(IdempotencyWindow.olderLookup("= ?1"))) LIMIT 1
            """, arguments: [event.digest]) ?? false
    }
}
