import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `OutcomeStore`: recording what became of each delivery, and an event's and a device's outcomes.
extension PostgresRegistrationStore {
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
}
