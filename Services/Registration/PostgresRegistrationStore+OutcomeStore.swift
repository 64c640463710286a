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
    /// once), leaving out deliveries already in their completed event's delivered list; each
    /// device's latest; then the events' counts, moving a complete event's delivered
    /// outcomes into its list.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        let touched = EventLogCounting.events(of: outcomes)
        let logger = logger
        return try await database.withTransaction { db in
            var logged: [EventKey: LoggedRow] = [:]
            if !touched.isEmpty {
                let keys = Array(Set(touched.map(\.logKey))).sorted()
                for (key, app, eventId, source, kind, acceptedAt, deliveries, completedAfter, list) in try await db.run("""
                    SELECT key, app, eventId, source, kind, acceptedAt, deliveries, completedAfter, deliveredList FROM eventLog
                    WHERE key = ANY(\(keys)::bigint[]) ORDER BY key, app, eventId FOR UPDATE
                    """, logger: logger).decode((Int64, String, String, String, String, Int64, Int32, Int32?, Data?).self) {
                    let event = EventKey(app: app, eventId: eventId)
                    guard touched.contains(event) else { continue }
                    logged[event] = LoggedRow(
                        key: key, source: source, kind: kind, acceptedAt: acceptedAt, deliveries: Int(deliveries), completedAfter: completedAfter.map(Int64.init),
                        list: DeliveredList(list))
                }
            }
            let fresh = outcomes.filter { logged[EventKey(app: $0.app, eventId: $0.eventId)]?.list.contains($0.deliveryId) != true }
            try await Self.upsert(fresh, db, logger: logger)
            guard !logged.isEmpty else { return [] }
            return try await Self.count(&logged, db, now: Date(), logger: logger)
        }
    }

    /// An event log row as `record` reads and counts it.
    struct LoggedRow {
        var key: Int64
        var source: String
        var kind: String
        var acceptedAt: Int64
        var deliveries: Int
        var completedAfter: Int64?
        var list: DeliveredList
    }

    /// Writes outcome rows (the latest per delivery, and how many came) and each device's
    /// latest outcome.
    static func upsert(_ outcomes: [Outcome], _ db: PostgresConnection, logger: Logger) async throws {
        struct Folded {
            var latest: Outcome
            var count: Int
        }
        var folded: [String: Folded] = [:]
        var order: [String] = []
        var devices: [String: Outcome] = [:]
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
            if let deviceId = outcome.deviceId {
                let device = outcome.app + "\u{1}" + deviceId
                if devices[device].map({ outcome.at >= $0.at }) ?? true { devices[device] = outcome }
            }
        }
        guard !order.isEmpty else { return }
        let rows = order.compactMap { folded[$0] }
        let latest = rows.map(\.latest)
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
        let byDevice = devices.sorted { $0.key < $1.key }.map(\.value)
        guard !byDevice.isEmpty else { return }
        try await db.run("""
            INSERT INTO deviceOutcomes (app, deviceId, eventId, deliveryId, status, providerCode, at)
            SELECT app, deviceId, eventId, deliveryId, status, CASE WHEN hasCode THEN providerCode END, at
            FROM unnest(\(byDevice.map(\.app))::text[], \(byDevice.map { $0.deviceId ?? "" })::text[], \(byDevice.map(\.eventId))::text[],
                        \(byDevice.map(\.deliveryId))::text[], \(byDevice.map(\.status.rawValue))::text[], \(byDevice.map { $0.providerCode ?? "" })::text[],
                        \(byDevice.map { $0.providerCode != nil })::bool[], \(byDevice.map(\.at))::timestamptz[])
                AS t(app, deviceId, eventId, deliveryId, status, providerCode, hasCode, at)
            ON CONFLICT (app, deviceId) DO UPDATE SET
                eventId = excluded.eventId, deliveryId = excluded.deliveryId, status = excluded.status, providerCode = excluded.providerCode, at = excluded.at
            WHERE excluded.at >= deviceOutcomes.at
            """, logger: logger)
    }

    /// Counts the locked events again (their rows and their delivered lists), marks complete
    /// those whose deliveries all have a final outcome now, moves a complete event's
    /// delivered outcome rows into its list (counted per minute for `/stats` first), and
    /// returns the events this call completed.
    static func count(_ logged: inout [EventKey: LoggedRow], _ db: PostgresConnection, now: Date, logger: Logger) async throws -> [CompletedEvent] {
        let keys = logged.keys.sorted { ($0.app, $0.eventId) < ($1.app, $1.eventId) }
        var grouped: [EventKey: [(OutcomeStatus, Int)]] = [:]
        for (app, eventId, status, count) in try await db.run("""
            SELECT app, eventId, status, count(*) FROM outcomes
            WHERE (app, eventId) IN (SELECT * FROM unnest(\(keys.map(\.app))::text[], \(keys.map(\.eventId))::text[]))
            GROUP BY app, eventId, status
            """, logger: logger).decode((String, String, String, Int).self) {
            grouped[EventKey(app: app, eventId: eventId), default: []].append((OutcomeStatus(rawValue: status) ?? .failed, count))
        }
        var completed: [CompletedEvent] = []
        var counts: [EventCounts] = []
        var complete: [EventKey] = []
        for key in keys {
            var event = logged[key]!
            var count = EventCounts(grouped[key] ?? [])
            count.delivered += event.list.count
            let finished = event.completedAfter == nil && count.final >= event.deliveries
            if finished { event.completedAfter = StoredTime.millis(now) - event.acceptedAt }
            if event.completedAfter != nil && (grouped[key] ?? []).contains(where: { $0.0 == .delivered }) { complete.append(key) }
            counts.append(count)
            logged[key] = event
            if finished {
                completed.append(CompletedEvent(app: key.app, summary: EventSummary(
                    eventId: key.eventId, source: event.source, kind: event.kind, acceptedAt: StoredTime.date(event.acceptedAt), deliveries: event.deliveries,
                    counts: count, completedAt: event.completedAfter.map { StoredTime.date(event.acceptedAt + $0) })))
            }
        }
        if !complete.isEmpty { try await collapse(complete, into: &logged, db, logger: logger) }
        let rows = keys.map { logged[$0]! }
        try await db.run("""
            UPDATE eventLog SET delivered = t.delivered, failed = t.failed, expired = t.expired, revoked = t.revoked, filtered = t.filtered,
                retrying = t.retrying, status = t.status, completedAfter = CASE WHEN t.hasCompleted THEN t.completedAfter END,
                deliveredList = decode(NULLIF(t.list, ''), 'hex')
            FROM unnest(\(rows.map(\.key))::bigint[], \(keys.map(\.app))::text[], \(keys.map(\.eventId))::text[],
                        \(counts.map { Int32(clamping: $0.delivered) })::integer[], \(counts.map { Int32(clamping: $0.failed) })::integer[],
                        \(counts.map { Int32(clamping: $0.expired) })::integer[], \(counts.map { Int32(clamping: $0.revoked) })::integer[],
                        \(counts.map { Int32(clamping: $0.filtered) })::integer[], \(counts.map { Int32(clamping: $0.retrying) })::integer[],
                        \(zip(counts, rows).map { Int16($0.progress(deliveries: $1.deliveries).storedCode) })::smallint[],
                        \(rows.map { Int32(clamping: $0.completedAfter ?? 0) })::integer[], \(rows.map { $0.completedAfter != nil })::bool[],
                        \(rows.map { Hex.encode($0.list.bytes) })::text[])
                AS t(key, app, eventId, delivered, failed, expired, revoked, filtered, retrying, status, completedAfter, hasCompleted, list)
            WHERE eventLog.key = t.key AND eventLog.app = t.app AND eventLog.eventId = t.eventId
            """, logger: logger)
        return completed
    }

    /// Moves complete events' delivered outcome rows into their lists (those whose id and
    /// time fit), adding them to the per-minute counters first.
    static func collapse(_ events: [EventKey], into logged: inout [EventKey: LoggedRow], _ db: PostgresConnection, logger: Logger) async throws {
        var moved: [(app: String, deliveryId: String)] = []
        var perMinute: [String: [Int64: [String: Int]]] = [:]
        for (app, eventId, deliveryId, at, updates, platform) in try await db.run("""
            SELECT app, eventId, deliveryId, at, updates, platform FROM outcomes
            WHERE (app, eventId) IN (SELECT * FROM unnest(\(events.map(\.app))::text[], \(events.map(\.eventId))::text[])) AND status = 'delivered'
            ORDER BY app, deliveryId
            """, logger: logger).decode((String, String, String, Date, Int, String?).self) {
            let event = EventKey(app: app, eventId: eventId)
            guard var row = logged[event], row.list.append(deliveryId, at: at, updates: updates, acceptedAt: StoredTime.date(row.acceptedAt)) else { continue }
            logged[event] = row
            moved.append((app, deliveryId))
            perMinute[app, default: [:]][StoredTime.minute(StoredTime.millis(at)), default: [:]][platform ?? "", default: 0] += 1
        }
        guard !moved.isEmpty else { return }
        try await db.run("""
            DELETE FROM outcomes WHERE (app, deliveryId) IN (SELECT * FROM unnest(\(moved.map(\.app))::text[], \(moved.map(\.deliveryId))::text[]))
            """, logger: logger)
        let counters = perMinute.flatMap { app, minutes in minutes.flatMap { minute, platforms in platforms.map { (app, minute, $0.key, $0.value) } } }
            .sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        try await db.run("""
            INSERT INTO deliveredPerMinute (app, minute, platform, count)
            SELECT * FROM unnest(\(counters.map(\.0))::text[], \(counters.map(\.1))::bigint[], \(counters.map(\.2))::text[], \(counters.map { Int64($0.3) })::bigint[])
            ON CONFLICT (app, minute, platform) DO UPDATE SET count = deliveredPerMinute.count + excluded.count
            """, logger: logger)
    }

    /// What became of an event: whether it was resolved, and each delivery's latest outcome
    /// (its row, or its entry in the event's delivered list).
    public func eventStatus(app: String, eventId: String) async throws -> EventStatus? {
        let resolved = try await isProcessed(app: app, eventId: eventId)
        var deliveries: [DeliveryStatus] = []
        let rows = try await database.query("""
            SELECT deliveryId, status, reason, providerCode, at, updates FROM outcomes WHERE app = \(app) AND eventId = \(eventId)
            """, logger: logger)
        for (deliveryId, status, reason, providerCode, at, updates) in try rows.decode((String, String, String?, String?, Date, Int).self) {
            deliveries.append(DeliveryStatus(
                deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, reason: reason, providerCode: providerCode, at: at, updates: updates))
        }
        let key = EventKey(app: app, eventId: eventId).logKey
        for (acceptedAt, list) in try await database.query("""
            SELECT acceptedAt, deliveredList FROM eventLog WHERE key = \(key) AND app = \(app) AND eventId = \(eventId) AND deliveredList IS NOT NULL
            """, logger: logger).decode((Int64, Data).self) {
            deliveries += DeliveredList(list).statuses(acceptedAt: StoredTime.date(acceptedAt))
        }
        guard resolved || !deliveries.isEmpty else { return nil }
        let summary = try await events(app: app, EventQuery(eventId: eventId, limit: 1)).events.first
        return EventStatus(eventId: eventId, resolved: resolved, deliveries: deliveries.sorted { $0.deliveryId < $1.deliveryId }, summary: summary)
    }

    /// The device's latest outcome and its other outcomes still kept as rows (those that
    /// were not delivered, and those of events not yet complete), most recent first.
    public func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome] {
        let rows = try await database.query("""
            SELECT eventId, deliveryId, status, providerCode, at FROM deviceOutcomes WHERE app = \(app) AND deviceId = \(deviceId)
            UNION
            (SELECT eventId, deliveryId, status, providerCode, at FROM outcomes WHERE app = \(app) AND deviceId = \(deviceId) ORDER BY at DESC LIMIT \(Int64(limit)))
            """, logger: logger)
        var outcomes: [DeviceOutcome] = []
        for (eventId, deliveryId, status, providerCode, at) in try rows.decode((String, String, String, String?, Date).self) {
            outcomes.append(DeviceOutcome(eventId: eventId, deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, providerCode: providerCode, at: at))
        }
        var seen = Set<String>()
        return Array(outcomes.sorted { ($0.at, $0.deliveryId) > ($1.at, $1.deliveryId) }.filter { seen.insert($0.deliveryId).inserted }.prefix(limit))
    }
}
