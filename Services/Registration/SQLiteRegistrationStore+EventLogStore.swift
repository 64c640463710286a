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
            let statement = try db.cachedStatement(sql: """
                INSERT INTO eventLog (app, eventId, source, kind, acceptedAt, deliveries, traceId) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, eventId) DO UPDATE SET deliveries = excluded.deliveries, traceId = coalesce(eventLog.traceId, excluded.traceId)
                """)
            for event in events {
                try statement.execute(arguments: [event.app, event.eventId, event.source, event.kind, event.acceptedAt, event.deliveries, event.traceId])
            }
        }
    }

    /// A page of the app's logged events, most recent first.
    public func events(app: String, _ query: EventQuery) async throws -> EventPage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        return try await database.read { db in
            var conditions = ["app = ?"]
            var arguments: [(any DatabaseValueConvertible)?] = [app]
            if let eventId = query.eventId { conditions.append("eventId = ?"); arguments.append(eventId) }
            if let status = query.status { conditions.append("status = ?"); arguments.append(status.rawValue) }
            if let source = query.source { conditions.append("source = ?"); arguments.append(source) }
            if let kind = query.kind { conditions.append("kind = ?"); arguments.append(kind) }
            if let since = query.since { conditions.append("acceptedAt >= ?"); arguments.append(since) }
            if let until = query.until { conditions.append("acceptedAt < ?"); arguments.append(until) }
            if let cursor {
                // A row value, which SQLite reads as one range of the index.
                conditions.append("(acceptedAt, eventId) < (?, ?)")
                arguments += [cursor.position, cursor.id]
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt, traceId,
                    CAST(acceptedAt AS TEXT) AS position
                FROM eventLog WHERE \(conditions.joined(separator: " AND ")) ORDER BY acceptedAt DESC, eventId DESC LIMIT ?
                """, arguments: StatementArguments(arguments + [query.limit + 1]))
            let page = rows.prefix(query.limit)
            let events = page.map { row in
                var counts = EventCounts()
                counts.delivered = row["delivered"]
                counts.failed = row["failed"]
                counts.expired = row["expired"]
                counts.revoked = row["revoked"]
                counts.filtered = row["filtered"]
                counts.retrying = row["retrying"]
                return EventSummary(
                    eventId: row["eventId"], source: row["source"], kind: row["kind"], acceptedAt: row["acceptedAt"], deliveries: row["deliveries"],
                    counts: counts, completedAt: row["completedAt"], traceId: row["traceId"])
            }
            let next = rows.count > query.limit ? page.last.map { PageCursor(position: $0["position"], id: $0["eventId"]).encoded } : nil
            return EventPage(events: events, nextCursor: next)
        }
    }

    /// The app's events accepted and outcomes per minute and provider from `since` to `until`
    /// (callbacks left out: they are not events).
    public func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats {
        try await database.read { db in
            let accepted = try Row.fetchAll(db, sql: """
                SELECT substr(acceptedAt, 1, 16) AS minute, count(*) FROM eventLog WHERE app = ? AND acceptedAt >= ? AND acceptedAt < ? GROUP BY minute
                """, arguments: [app, since, until]).compactMap { row in EventLogCounting.minute(row[0]).map { ($0, row[1] as Int) } }
            let outcomes = try Row.fetchAll(db, sql: """
                SELECT substr(at, 1, 16) AS minute, platform, status, count(*) FROM outcomes
                WHERE app = ? AND at >= ? AND at < ? AND eventId NOT LIKE 'callback:%' GROUP BY minute, platform, status
                """, arguments: [app, since, until]).compactMap { row -> (Date, String?, OutcomeStatus, Int)? in
                guard let minute = EventLogCounting.minute(row[0]), let status = OutcomeStatus(rawValue: row[2]) else { return nil }
                return (minute, row[1], status, row[3])
            }
            return DeliveryStats(since: since, until: until, accepted: accepted, outcomes: outcomes)
        }
    }
}
