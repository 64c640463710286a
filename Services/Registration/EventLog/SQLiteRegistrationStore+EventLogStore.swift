import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `EventLogStore`: the log of accepted events, its pages and its stats.
extension SQLiteRegistrationStore {
    /// Logs events about to be fanned out; an event fanned out again (after a failure)
    /// keeps its counts and takes its new number of deliveries.
    public func logEvents(_ events: [LoggedEvent]) async throws {
        guard !events.isEmpty else { return }
        try await database.write { db in
            let existing = try db.cachedStatement(sql: "SELECT id FROM eventLog INDEXED BY eventLogByKey WHERE key = ? AND app = ? AND eventId = ?")
            let update = try db.cachedStatement(sql: "UPDATE eventLog SET deliveries = ?, traceId = coalesce(traceId, ?) WHERE id = ?")
            let insert = try db.cachedStatement(sql: """
                INSERT INTO eventLog (key, app, eventId, source, kind, acceptedAt, deliveries, traceId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for event in events {
                let key = EventKey(app: event.app, eventId: event.eventId).logKey
                let traceId = StoredTraceId.bytes(event.traceId)
                if let id = try Int64.fetchOne(existing, arguments: [key, event.app, event.eventId]) {
                    try update.execute(arguments: [event.deliveries, traceId, id])
                } else {
                    try insert.execute(arguments: [
                        key, event.app, event.eventId, event.source, event.kind, StoredTime.millis(event.acceptedAt), event.deliveries, traceId,
                    ])
                }
            }
        }
    }

    /// A page of the app's logged events, most recent first (ties by id).
    public func events(app: String, _ query: EventQuery) async throws -> EventPage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        return try await database.read { db in
            // With an id, the event's key finds it (the app's index would read all its events).
            var conditions = [query.eventId == nil ? "app = ?" : "+app = ?"]
            var arguments: [(any DatabaseValueConvertible)?] = [app]
            if let eventId = query.eventId {
                conditions.append("key = ? AND eventId = ?")
                arguments += [EventKey(app: app, eventId: eventId).logKey, eventId]
            }
            if let status = query.status {
                // The second term names the partial index's condition, so SQLite can use it.
                conditions.append(status == .delivered ? "status = ?" : "status = ? AND status <> 1")
                arguments.append(status.storedCode)
            }
            if let source = query.source { conditions.append("source = ?"); arguments.append(source) }
            if let kind = query.kind { conditions.append("kind = ?"); arguments.append(kind) }
            if let since = query.since { conditions.append("acceptedAt >= ?"); arguments.append(StoredTime.millis(since)) }
            if let until = query.until { conditions.append("acceptedAt < ?"); arguments.append(StoredTime.millis(until)) }
            if let cursor {
                guard let position = Int64(cursor.position) else {
                    throw CommandError(code: "invalid-cursor", detail: "cursor: not a cursor this list answered with")
                }
                // A row value, which SQLite reads as one range of the index.
                conditions.append("(acceptedAt, eventId) < (?, ?)")
                arguments += [position, cursor.id]
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT eventId, source, kind, acceptedAt, deliveries, counts, length(deliveredList) AS listed, completedAfter, traceId
                FROM eventLog WHERE \(conditions.joined(separator: " AND ")) ORDER BY acceptedAt DESC, eventId DESC LIMIT ?
                """, arguments: StatementArguments(arguments + [query.limit + 1]))
            let page = rows.prefix(query.limit)
            let events = page.map(Self.summary)
            let next = rows.count > query.limit ? page.last.map { row in
                PageCursor(position: String(row["acceptedAt"] as Int64), id: row["eventId"]).encoded
            } : nil
            return EventPage(events: events, nextCursor: next)
        }
    }

    /// An event log row as the API shows it.
    static func summary(_ row: Row) -> EventSummary {
        let listed: Int = row["listed"] ?? 0
        let counts = StoredCounts.counts(row["counts"], listed: listed / DeliveredList.entrySize)
        let acceptedAt: Int64 = row["acceptedAt"]
        let completedAfter: Int64? = row["completedAfter"]
        return EventSummary(
            eventId: row["eventId"], source: row["source"], kind: row["kind"], acceptedAt: StoredTime.date(acceptedAt), deliveries: row["deliveries"],
            counts: counts, completedAt: completedAfter.map { StoredTime.date(acceptedAt + $0) }, traceId: StoredTraceId.text(row["traceId"]))
    }

    /// The app's events accepted and outcomes per minute and provider from `since` to `until`
    /// (callbacks left out: they are not events): outcome rows, and the counters of
    /// delivered outcomes that went into their events' lists.
    public func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats {
        try await database.read { db in
            let (from, to) = (StoredTime.millis(since), StoredTime.millis(until))
            let accepted = try Row.fetchAll(db, sql: """
                SELECT acceptedAt / 60000 AS minute, count(*) FROM eventLog WHERE app = ? AND acceptedAt >= ? AND acceptedAt < ? GROUP BY minute
                """, arguments: [app, from, to]).map { row in (StoredTime.date(row[0] * 60_000), row[1] as Int) }
            var outcomes = try Row.fetchAll(db, sql: """
                SELECT substr(at, 1, 16) AS minute, platform, status, count(*) FROM outcomes
                WHERE app = ? AND at >= ? AND at < ? AND eventId NOT LIKE 'callback:%' GROUP BY minute, platform, status
                """, arguments: [app, since, until]).compactMap { row -> (Date, String?, OutcomeStatus, Int)? in
                guard let minute = EventLogCounting.minute(row[0]), let status = OutcomeStatus(rawValue: row[2]) else { return nil }
                return (minute, row[1], status, row[3])
            }
            // A counter's minute is whole: it counts when any of the minute is inside the window.
            outcomes += try Row.fetchAll(db, sql: """
                SELECT minute, platform, count FROM deliveredPerMinute WHERE app = ? AND minute >= ? AND minute * 60000 < ?
                """, arguments: [app, StoredTime.minute(from), to]).map { row in
                let platform: String = row[1]
                return (StoredTime.date(row[0] * 60_000), platform.isEmpty ? nil : platform, .delivered, row[2])
            }
            return DeliveryStats(since: since, until: until, accepted: accepted, outcomes: outcomes)
        }
    }
}
