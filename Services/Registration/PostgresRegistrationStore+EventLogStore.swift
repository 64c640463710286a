import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `EventLogStore`: the log of accepted events, its pages and its stats.
extension PostgresRegistrationStore {
    public func logEvents(_ events: [LoggedEvent]) async throws {
        var seen = Set<EventKey>()
        let events = events.filter { seen.insert(EventKey(app: $0.app, eventId: $0.eventId)).inserted }
            .sorted { ($0.app, $0.eventId) < ($1.app, $1.eventId) }
        guard !events.isEmpty else { return }
        try await database.query("""
            INSERT INTO eventLog (app, eventId, source, kind, acceptedAt, deliveries, traceId)
            SELECT app, eventId, source, kind, acceptedAt, deliveries, NULLIF(traceId, '')
            FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[], \(events.map(\.source))::text[],
                        \(events.map(\.kind))::text[], \(events.map(\.acceptedAt))::timestamptz[], \(events.map { Int64($0.deliveries) })::bigint[],
                        \(events.map { $0.traceId ?? "" })::text[])
                AS t(app, eventId, source, kind, acceptedAt, deliveries, traceId)
            ORDER BY 1, 2
            ON CONFLICT (app, eventId) DO UPDATE SET deliveries = excluded.deliveries, traceId = COALESCE(eventLog.traceId, excluded.traceId)
            """, logger: logger)
    }

    public func events(app: String, _ query: EventQuery) async throws -> EventPage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        let micros = try Self.micros(cursor)
        let status = query.status?.rawValue
        let rows = try await database.query("""
            SELECT eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt, traceId,
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
        for (eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt, traceId, position)
            in try rows.decode((String, String, String, Date, Int, Int, Int, Int, Int, Int, Int, Date?, String?, Int64).self) {
            guard events.count < query.limit else { return EventPage(events: events, nextCursor: last?.encoded) }
            var counts = EventCounts()
            (counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying) = (delivered, failed, expired, revoked, filtered, retrying)
            events.append(EventSummary(
                eventId: eventId, source: source, kind: kind, acceptedAt: acceptedAt, deliveries: deliveries, counts: counts, completedAt: completedAt,
                traceId: traceId))
            last = PageCursor(position: String(position), id: eventId)
        }
        return EventPage(events: events, nextCursor: nil)
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
}
