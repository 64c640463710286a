import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `OutcomeStore`: recording what became of each delivery, and an event's and a device's outcomes.
extension SQLiteRegistrationStore {
    /// Records outcomes: a delivered outcome of a logged event goes into the event's
    /// delivered list (a copy of a listed delivery's outcome counts as one more update);
    /// any other keeps its row, the latest per delivery by time (a late `retrying` never
    /// hides the outcome that followed it), counting how many arrived. Each device keeps its
    /// latest outcome. Then counts again the logged events they belong to, and returns those
    /// whose last delivery this batch finished.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        try await database.write { db in
            var logged = try Self.loggedRows(db, EventLogCounting.events(of: outcomes))
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
            let earlier = try db.cachedStatement(sql: "DELETE FROM outcomes WHERE app = ? AND deliveryId = ? RETURNING updates")
            var delivered = DeliveredPerMinute()
            for outcome in outcomes {
                let event = EventKey(app: outcome.app, eventId: outcome.eventId)
                if var row = logged[event] {
                    let disposition = row.dispose(outcome)
                    if disposition == .listed {
                        row.listDelivered(outcome, updates: (try Int.fetchAll(earlier, arguments: [outcome.app, outcome.deliveryId]).first ?? 0) + 1)
                    }
                    logged[event] = row
                    if disposition == .copy { continue }
                    if disposition == .listed {
                        delivered.add(app: outcome.app, at: outcome.at, platform: outcome.platform?.rawValue)
                        if let deviceId = outcome.deviceId {
                            try device.execute(arguments: [outcome.app, deviceId, outcome.eventId, outcome.deliveryId, outcome.status.rawValue, outcome.providerCode, outcome.at])
                        }
                        continue
                    }
                }
                try statement.execute(arguments: [
                    outcome.app, outcome.deliveryId, outcome.eventId, outcome.status.rawValue, outcome.reason, outcome.providerCode, outcome.at,
                    outcome.platform?.rawValue, outcome.deviceId,
                ])
                if let deviceId = outcome.deviceId {
                    try device.execute(arguments: [outcome.app, deviceId, outcome.eventId, outcome.deliveryId, outcome.status.rawValue, outcome.providerCode, outcome.at])
                }
            }
            try Self.add(delivered, db)
            return try Self.count(db, &logged, now: Date())
        }
    }

    /// An event's log row by its key, app and id.
    static let loggedEventSQL = """
        SELECT id, source, kind, acceptedAt, deliveries, completedAfter, deliveredList FROM eventLog INDEXED BY eventLogByKey WHERE key = ? AND app = ? AND eventId = ?
        """

    /// The log rows of `events` (those logged).
    static func loggedRows(_ db: Database, _ events: [EventKey]) throws -> [EventKey: LoggedEventRow] {
        let statement = try db.cachedStatement(sql: loggedEventSQL)
        var rows: [EventKey: LoggedEventRow] = [:]
        for event in events {
            guard let row = try Row.fetchOne(statement, arguments: [event.logKey, event.app, event.eventId]) else { continue }
            rows[event] = LoggedEventRow(
                id: row["id"], source: row["source"], kind: row["kind"], acceptedAt: row["acceptedAt"], deliveries: row["deliveries"],
                completedAfter: row["completedAfter"], list: DeliveredList(row["deliveredList"]))
        }
        return rows
    }

    /// Adds to the per-minute counters of delivered outcomes.
    static func add(_ delivered: DeliveredPerMinute, _ db: Database) throws {
        let counter = try db.cachedStatement(sql: """
            INSERT INTO deliveredPerMinute (app, minute, platform, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (app, minute, platform) DO UPDATE SET count = count + excluded.count
            """)
        for (key, count) in delivered.sorted { try counter.execute(arguments: [key.app, key.minute, key.platform, count]) }
    }

    /// Counts the logged events again (their outcome rows and their delivered lists), marks
    /// complete those whose deliveries all have a final outcome now, writes the rows back,
    /// and returns the events this call completed.
    static func count(_ db: Database, _ logged: inout [EventKey: LoggedEventRow], now: Date) throws -> [CompletedEvent] {
        let grouped = try db.cachedStatement(sql: "SELECT status, count(*) FROM outcomes WHERE app = ? AND eventId = ? GROUP BY status")
        let update = try db.cachedStatement(sql: """
            UPDATE eventLog SET counts = ?, status = ?, completedAfter = ?, deliveredList = ? WHERE id = ?
            """)
        var completed: [CompletedEvent] = []
        for event in logged.keys.sorted(by: { ($0.app, $0.eventId) < ($1.app, $1.eventId) }) {
            var row = logged[event]!
            var counts = EventCounts(try Row.fetchAll(grouped, arguments: [event.app, event.eventId]).map {
                (OutcomeStatus(rawValue: $0[0]) ?? .failed, $0[1] as Int)
            })
            counts.delivered += row.list.count
            let finished = row.completedAfter == nil && counts.final >= row.deliveries
            if finished { row.completedAfter = StoredTime.millis(now) - row.acceptedAt }
            try update.execute(arguments: [
                StoredCounts.bytes(counts, listed: row.list.count), counts.progress(deliveries: row.deliveries).storedCode, row.completedAfter,
                row.list.count > 0 ? row.list.data : nil, row.id,
            ])
            logged[event] = row
            if finished {
                completed.append(CompletedEvent(app: event.app, summary: EventSummary(
                    eventId: event.eventId, source: row.source, kind: row.kind, acceptedAt: StoredTime.date(row.acceptedAt), deliveries: row.deliveries,
                    counts: counts, completedAt: row.completedAfter.map { StoredTime.date(row.acceptedAt + $0) })))
            }
        }
        return completed
    }

    /// What became of an event: whether it was resolved, and each delivery's latest outcome
    /// (its row, or its entry in the event's delivered list). Nil when nothing is known of it
    /// (never seen, still queued, or pruned).
    public func eventStatus(app: String, eventId: String) async throws -> EventStatus? {
        let key = EventKey(app: app, eventId: eventId)
        let status: EventStatus? = try await database.read { db in
            let resolved = try Self.isProcessed(db, key)
            var deliveries = try Row.fetchAll(db, sql: """
                SELECT deliveryId, status, reason, providerCode, at, updates FROM outcomes WHERE app = ? AND eventId = ?
                """, arguments: [app, eventId]).map { row in
                DeliveryStatus(
                    deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed, reason: row["reason"],
                    providerCode: row["providerCode"], at: row["at"], updates: row["updates"])
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT acceptedAt, deliveredList FROM eventLog INDEXED BY eventLogByKey WHERE key = ? AND app = ? AND eventId = ? AND deliveredList IS NOT NULL
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
