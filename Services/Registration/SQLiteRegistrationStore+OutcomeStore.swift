import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `OutcomeStore`: recording what became of each delivery, and an event's and a device's outcomes.
extension SQLiteRegistrationStore {
    /// Records outcomes, keeping per delivery the latest (by its time; a late `retrying`
    /// never hides the `delivered` that followed it) and counting how many arrived, and per
    /// device its latest; then counts again the logged events they belong to, and returns
    /// those whose last delivery this batch finished. A delivery already in its completed
    /// event's delivered list has had its final outcome: a copy of it changes nothing.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        try await database.write { db in
            let events = EventLogCounting.events(of: outcomes)
            let listed = try Self.deliveredLists(db, events)
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
            let device = try db.cachedStatement(sql: """
                INSERT INTO deviceOutcomes (app, deviceId, eventId, deliveryId, status, providerCode, at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, deviceId) DO UPDATE SET
                    eventId = excluded.eventId, deliveryId = excluded.deliveryId, status = excluded.status, providerCode = excluded.providerCode, at = excluded.at
                WHERE excluded.at >= deviceOutcomes.at
                """)
            for outcome in outcomes {
                if listed[EventKey(app: outcome.app, eventId: outcome.eventId)]?.contains(outcome.deliveryId) == true { continue }
                try statement.execute(arguments: [
                    outcome.app, outcome.deliveryId, outcome.eventId, outcome.status.rawValue, outcome.reason, outcome.providerCode, outcome.at,
                    outcome.platform?.rawValue, outcome.deviceId,
                ])
                if let deviceId = outcome.deviceId {
                    try device.execute(arguments: [outcome.app, deviceId, outcome.eventId, outcome.deliveryId, outcome.status.rawValue, outcome.providerCode, outcome.at])
                }
            }
            return try Self.count(db, events, now: Date())
        }
    }

    /// The delivered lists of the completed events among `events`.
    static func deliveredLists(_ db: Database, _ events: [EventKey]) throws -> [EventKey: DeliveredList] {
        let statement = try db.cachedStatement(sql: "SELECT deliveredList FROM eventLog WHERE key = ? AND app = ? AND eventId = ? AND deliveredList IS NOT NULL")
        var lists: [EventKey: DeliveredList] = [:]
        for event in events {
            if let data = try Data.fetchOne(statement, arguments: [event.logKey, event.app, event.eventId]) { lists[event] = DeliveredList(data) }
        }
        return lists
    }

    /// Counts the outcomes of logged events again (their rows and their delivered lists),
    /// marks complete those whose deliveries all have a final outcome now, and moves a
    /// complete event's delivered outcomes into its list.
    static func count(_ db: Database, _ events: [EventKey], now: Date) throws -> [CompletedEvent] {
        let logged = try db.cachedStatement(sql: """
            SELECT id, source, kind, acceptedAt, deliveries, completedAfter, deliveredList FROM eventLog WHERE key = ? AND app = ? AND eventId = ?
            """)
        let grouped = try db.cachedStatement(sql: "SELECT status, count(*) FROM outcomes WHERE app = ? AND eventId = ? GROUP BY status")
        let update = try db.cachedStatement(sql: """
            UPDATE eventLog SET delivered = ?, failed = ?, expired = ?, revoked = ?, filtered = ?, retrying = ?, status = ?, completedAfter = ?,
                deliveredList = ? WHERE id = ?
            """)
        var completed: [CompletedEvent] = []
        for event in events {
            guard let row = try Row.fetchOne(logged, arguments: [event.logKey, event.app, event.eventId]) else { continue }
            var list = DeliveredList(row["deliveredList"])
            var counts = EventCounts(try Row.fetchAll(grouped, arguments: [event.app, event.eventId]).map {
                (OutcomeStatus(rawValue: $0[0]) ?? .failed, $0[1] as Int)
            })
            counts.delivered += list.count
            let deliveries: Int = row["deliveries"]
            let acceptedAt: Int64 = row["acceptedAt"]
            var completedAfter: Int64? = row["completedAfter"]
            let finished = completedAfter == nil && counts.final >= deliveries
            if finished { completedAfter = StoredTime.millis(now) - acceptedAt }
            if completedAfter != nil {
                try collapse(db, app: event.app, eventId: event.eventId, acceptedAt: acceptedAt, into: &list)
            }
            try update.execute(arguments: [
                counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying,
                counts.progress(deliveries: deliveries).storedCode, completedAfter, list.count > 0 ? list.data : nil, row["id"] as Int64,
            ])
            if finished {
                completed.append(CompletedEvent(app: event.app, summary: EventSummary(
                    eventId: event.eventId, source: row["source"], kind: row["kind"], acceptedAt: StoredTime.date(acceptedAt), deliveries: deliveries,
                    counts: counts, completedAt: completedAfter.map { StoredTime.date(acceptedAt + $0) })))
            }
        }
        return completed
    }

    /// Moves a completed event's delivered outcome rows into its delivered list (those whose
    /// id and time fit), counting them per minute and provider for `/stats` first.
    static func collapse(_ db: Database, app: String, eventId: String, acceptedAt: Int64, into list: inout DeliveredList) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT deliveryId, at, updates, platform FROM outcomes WHERE app = ? AND eventId = ? AND status = 'delivered'"),
            arguments: [app, eventId])
        guard !rows.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM outcomes WHERE app = ? AND deliveryId = ?")
        let counter = try db.cachedStatement(sql: """
            INSERT INTO deliveredPerMinute (app, minute, platform, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (app, minute, platform) DO UPDATE SET count = count + excluded.count
            """)
        var perMinute: [Int64: [String: Int]] = [:]
        for row in rows {
            let deliveryId: String = row["deliveryId"]
            let at: Date = row["at"]
            guard list.append(deliveryId, at: at, updates: row["updates"], acceptedAt: StoredTime.date(acceptedAt)) else { continue }
            try delete.execute(arguments: [app, deliveryId])
            perMinute[StoredTime.minute(StoredTime.millis(at)), default: [:]][row["platform"] ?? "", default: 0] += 1
        }
        for (minute, platforms) in perMinute {
            for (platform, count) in platforms { try counter.execute(arguments: [app, minute, platform, count]) }
        }
    }

    /// What became of an event: whether it was resolved, and each delivery's latest outcome
    /// (its row, or its entry in the event's delivered list). Nil when nothing is known of it
    /// (never seen, still queued, or pruned).
    public func eventStatus(app: String, eventId: String) async throws -> EventStatus? {
        let key = EventKey(app: app, eventId: eventId)
        let status: EventStatus? = try await database.read { db in
            let resolved = try Bool.fetchOne(db, sql: "SELECT 1 FROM processedEvents WHERE key = ? AND claimed = 0", arguments: [key.digest]) ?? false
            var deliveries = try Row.fetchAll(db, sql: """
                SELECT deliveryId, status, reason, providerCode, at, updates FROM outcomes WHERE app = ? AND eventId = ?
                """, arguments: [app, eventId]).map { row in
                DeliveryStatus(
                    deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed, reason: row["reason"],
                    providerCode: row["providerCode"], at: row["at"], updates: row["updates"])
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT acceptedAt, deliveredList FROM eventLog WHERE key = ? AND app = ? AND eventId = ? AND deliveredList IS NOT NULL
                """, arguments: [key.logKey, app, eventId]) {
                deliveries += DeliveredList(row["deliveredList"]).statuses(acceptedAt: StoredTime.date(row["acceptedAt"]))
            }
            guard resolved || !deliveries.isEmpty else { return nil }
            return EventStatus(eventId: eventId, resolved: resolved, deliveries: deliveries.sorted { $0.deliveryId < $1.deliveryId })
        }
        guard var status else { return nil }
        status.summary = try await events(app: app, EventQuery(eventId: eventId, limit: 1)).events.first
        return status
    }

    /// The device's latest outcome and its other outcomes still kept as rows (those that
    /// were not delivered, and those of events not yet complete), most recent first.
    public func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome] {
        try await database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT eventId, deliveryId, status, providerCode, at FROM deviceOutcomes WHERE app = ? AND deviceId = ?
                UNION
                SELECT * FROM (SELECT eventId, deliveryId, status, providerCode, at FROM outcomes WHERE app = ? AND deviceId = ? ORDER BY at DESC LIMIT ?)
                """, arguments: [app, deviceId, app, deviceId, limit])
            var seen = Set<String>()
            return rows.map { row in
                DeviceOutcome(
                    eventId: row["eventId"], deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed,
                    providerCode: row["providerCode"], at: row["at"])
            }
            .sorted { ($0.at, $0.deliveryId) > ($1.at, $1.deliveryId) }
            .filter { seen.insert($0.deliveryId).inserted }
            .prefix(limit).map { $0 }
        }
    }
}
