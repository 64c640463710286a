import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `OutcomeStore`: recording what became of each delivery, and an event's and a device's outcomes.
extension SQLiteRegistrationStore {
    /// Records outcomes, keeping per delivery the latest (by its time; a late `retrying`
    /// never hides the `delivered` that followed it) and counting how many arrived; then
    /// counts again the logged events they belong to, and returns those whose last delivery
    /// this batch finished.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        try await database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO outcomes (app, deliveryId, eventId, status, reason, providerCode, at, updates, platform, deviceId) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                ON CONFLICT (app, deliveryId) DO UPDATE SET
                    updates = updates + 1,
                    status = CASE WHEN excluded.at >= at THEN excluded.status ELSE status END,
                    reason = CASE WHEN excluded.at >= at THEN excluded.reason ELSE reason END,
                    providerCode = CASE WHEN excluded.at >= at THEN excluded.providerCode ELSE providerCode END,
                    platform = COALESCE(excluded.platform, platform),
                    deviceId = COALESCE(excluded.deviceId, deviceId),
                    at = MAX(at, excluded.at)
                """)
            for outcome in outcomes {
                try statement.execute(arguments: [
                    outcome.app, outcome.deliveryId, outcome.eventId, outcome.status.rawValue, outcome.reason, outcome.providerCode, outcome.at,
                    outcome.platform?.rawValue, outcome.deviceId,
                ])
            }
            return try Self.count(db, EventLogCounting.events(of: outcomes), now: Date())
        }
    }

    /// Counts the outcomes of logged events again, and marks complete those whose deliveries
    /// all have a final outcome now.
    static func count(_ db: Database, _ events: [EventKey], now: Date) throws -> [CompletedEvent] {
        let logged = try db.cachedStatement(sql: "SELECT source, kind, acceptedAt, deliveries, completedAt FROM eventLog WHERE app = ? AND eventId = ?")
        let grouped = try db.cachedStatement(sql: "SELECT status, count(*) FROM outcomes WHERE app = ? AND eventId = ? GROUP BY status")
        let update = try db.cachedStatement(sql: """
            UPDATE eventLog SET delivered = ?, failed = ?, expired = ?, revoked = ?, filtered = ?, retrying = ?, status = ?, completedAt = ?
            WHERE app = ? AND eventId = ?
            """)
        var completed: [CompletedEvent] = []
        for event in events {
            guard let row = try Row.fetchOne(logged, arguments: [event.app, event.eventId]) else { continue }
            let counts = EventCounts(try Row.fetchAll(grouped, arguments: [event.app, event.eventId]).map {
                (OutcomeStatus(rawValue: $0[0]) ?? .failed, $0[1] as Int)
            })
            let deliveries: Int = row["deliveries"]
            var completedAt: Date? = row["completedAt"]
            let finished = completedAt == nil && counts.final >= deliveries
            if finished { completedAt = now }
            try update.execute(arguments: [
                counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying,
                counts.progress(deliveries: deliveries).rawValue, completedAt, event.app, event.eventId,
            ])
            if finished {
                completed.append(CompletedEvent(app: event.app, summary: EventSummary(
                    eventId: event.eventId, source: row["source"], kind: row["kind"], acceptedAt: row["acceptedAt"], deliveries: deliveries,
                    counts: counts, completedAt: completedAt)))
            }
        }
        return completed
    }

    /// What became of an event: whether it was resolved, and each delivery's latest outcome.
    /// Nil when nothing is known of it (never seen, still queued, or pruned).
    public func eventStatus(app: String, eventId: String) async throws -> EventStatus? {
        let status: EventStatus? = try await database.read { db in
            let resolved = try Bool.fetchOne(db, sql: "SELECT 1 FROM processedEvents WHERE app = ? AND eventId = ? AND claimed = 0", arguments: [app, eventId]) ?? false
            let deliveries = try Row.fetchAll(db, sql: """
                SELECT deliveryId, status, reason, providerCode, at, updates FROM outcomes WHERE app = ? AND eventId = ? ORDER BY deliveryId
                """, arguments: [app, eventId]).map { row in
                DeliveryStatus(
                    deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed, reason: row["reason"],
                    providerCode: row["providerCode"], at: row["at"], updates: row["updates"])
            }
            guard resolved || !deliveries.isEmpty else { return nil }
            return EventStatus(eventId: eventId, resolved: resolved, deliveries: deliveries)
        }
        guard var status else { return nil }
        status.summary = try await events(app: app, EventQuery(eventId: eventId, limit: 1)).events.first
        return status
    }

    public func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT eventId, deliveryId, status, providerCode, at FROM outcomes WHERE app = ? AND deviceId = ? ORDER BY at DESC LIMIT ?
                """, arguments: [app, deviceId, limit]).map { row in
                DeviceOutcome(
                    eventId: row["eventId"], deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed,
                    providerCode: row["providerCode"], at: row["at"])
            }
        }
    }
}
