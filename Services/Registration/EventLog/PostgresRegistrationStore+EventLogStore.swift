import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `EventLogStore`: the log of accepted events, its pages and its stats.
extension PostgresRegistrationStore {
    /// Logs events about to be fanned out; an event fanned out again keeps its counts and
    /// takes its new number of deliveries. The log has no unique index on its ids (a 64-bit
    /// key finds a row): a transaction-scoped advisory lock on each key keeps two replicas
    /// from logging one event twice.
    public func logEvents(_ events: [LoggedEvent]) async throws {
        var seen = Set<EventKey>()
        let events = events.filter { seen.insert(EventKey(app: $0.app, eventId: $0.eventId)).inserted }
        guard !events.isEmpty else { return }
        let keys = events.map { EventKey(app: $0.app, eventId: $0.eventId).logKey }
        let logger = logger
        try await database.withTransaction { db in
            try await db.run("SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT k FROM unnest(\(keys)::bigint[]) AS t(k) ORDER BY k) AS s", logger: logger)
            try await db.run("""
                WITH input AS (
                    SELECT * FROM unnest(\(keys)::bigint[], \(events.map(\.app))::text[], \(events.map(\.eventId))::text[], \(events.map(\.source))::text[],
                        \(events.map(\.kind))::text[], \(events.map { StoredTime.millis($0.acceptedAt) })::bigint[], \(events.map { Int32(clamping: $0.deliveries) })::integer[],
                        \(events.map { StoredTraceId.bytes($0.traceId).map { Hex.encode($0) } ?? "" })::text[])
                    AS t(key, app, eventId, source, kind, acceptedAt, deliveries, traceId)),
                updated AS (
                    UPDATE eventLog e SET deliveries = i.deliveries, traceId = COALESCE(e.traceId, decode(NULLIF(i.traceId, ''), 'hex'))
                    FROM input i WHERE e.key = i.key AND e.app = i.app AND e.eventId = i.eventId
                    RETURNING e.key, e.app, e.eventId)
                INSERT INTO eventLog (key, app, eventId, source, kind, acceptedAt, deliveries, traceId)
                SELECT key, app, eventId, source, kind, acceptedAt, deliveries, decode(NULLIF(traceId, ''), 'hex') FROM input i
                WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.key = i.key AND u.app = i.app AND u.eventId = i.eventId)
                """, logger: logger)
        }
    }

    /// A page of the app's logged events, most recent first (ties by id).
    public func events(app: String, _ query: EventQuery) async throws -> EventPage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        let position = try cursor.map { cursor in
            guard let at = Int64(cursor.position) else {
                throw CommandError(code: "invalid-cursor", detail: "cursor: not a cursor this list answered with")
            }
            return (at: at, eventId: cursor.id)
        }
        let key = query.eventId.map { EventKey(app: app, eventId: $0).logKey }
        let status = query.status.map { Int16($0.storedCode) }
        let rows = try await database.query("""
            SELECT eventId, source, kind, acceptedAt, deliveries, counts, coalesce(octet_length(deliveredList), 0), completedAfter, traceId
            FROM eventLog
            WHERE app = \(app) AND (\(key)::bigint IS NULL OR (key = \(key) AND eventId = \(query.eventId))) AND (\(status)::smallint IS NULL OR status = \(status))
                AND (\(query.source)::text IS NULL OR source = \(query.source)) AND (\(query.kind)::text IS NULL OR kind = \(query.kind))
                AND (\(query.since.map(StoredTime.millis))::bigint IS NULL OR acceptedAt >= \(query.since.map(StoredTime.millis)))
                AND (\(query.until.map(StoredTime.millis))::bigint IS NULL OR acceptedAt < \(query.until.map(StoredTime.millis)))
                AND (\(position?.at)::bigint IS NULL OR (acceptedAt, eventId) < (\(position?.at), \(position?.eventId)))
            ORDER BY acceptedAt DESC, eventId DESC LIMIT \(Int64(query.limit + 1))
            """, logger: logger)
        var events: [EventSummary] = []
        var last: PageCursor?
        for (eventId, source, kind, acceptedAt, deliveries, stored, listed, completedAfter, traceId)
            in try rows.decode((String, String, String, Int64, Int32, Data?, Int32, Int32?, Data?).self) {
            guard events.count < query.limit else { return EventPage(events: events, nextCursor: last?.encoded) }
            let counts = StoredCounts.counts(stored, listed: Int(listed) / DeliveredList.entrySize)
            events.append(EventSummary(
                eventId: eventId, source: source, kind: kind, acceptedAt: StoredTime.date(acceptedAt), deliveries: Int(deliveries), counts: counts,
                completedAt: completedAfter.map { StoredTime.date(acceptedAt + Int64($0)) }, traceId: StoredTraceId.text(traceId)))
            last = PageCursor(position: String(acceptedAt), id: eventId)
        }
        return EventPage(events: events, nextCursor: nil)
    }

    /// Events accepted per minute, and outcomes per minute, provider and status: outcome
    /// rows, and the counters of delivered outcomes that went into their events' lists.
    public func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats {
        let (from, to) = (StoredTime.millis(since), StoredTime.millis(until))
        var accepted: [(minute: Date, count: Int)] = []
        for (minute, count) in try await database.query("""
            SELECT acceptedAt / 60000, count(*) FROM eventLog WHERE app = \(app) AND acceptedAt >= \(from) AND acceptedAt < \(to) GROUP BY 1
            """, logger: logger).decode((Int64, Int).self) {
            accepted.append((StoredTime.date(minute * 60_000), count))
        }
        var outcomes: [(minute: Date, platform: String?, status: OutcomeStatus, count: Int)] = []
        // Grouped by the minute as a time (the session's zone is UTC's for whole minutes).
        for (minute, platform, status, count) in try await database.query("""
            SELECT date_trunc('minute', at), platform, status, count(*) FROM outcomes
            WHERE app = \(app) AND at >= \(since) AND at < \(until) AND eventId NOT LIKE 'callback:%' GROUP BY 1, 2, 3
            """, logger: logger).decode((Date, String?, String, Int).self) {
            if let status = OutcomeStatus(rawValue: status) { outcomes.append((minute, platform, status, count)) }
        }
        // A counter's minute is whole: it counts when any of the minute is inside the window.
        for (minute, platform, count) in try await database.query("""
            SELECT minute, platform, count FROM deliveredPerMinute WHERE app = \(app) AND minute >= \(StoredTime.minute(from)) AND minute * 60000 < \(to)
            """, logger: logger).decode((Int64, String, Int).self) {
            outcomes.append((StoredTime.date(minute * 60_000), platform.isEmpty ? nil : platform, .delivered, count))
        }
        return DeliveryStats(since: since, until: until, accepted: accepted, outcomes: outcomes)
    }
}
