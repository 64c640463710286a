import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `OutcomeStore`: recording what became of each delivery, and an event's and a device's outcomes.
extension PostgresRegistrationStore {
    /// Records a batch in one transaction: the logged events it touches are locked first
    /// (in one order), so of two batches finishing one event the second counts after the
    /// first committed and exactly one sees it complete. A delivered outcome of a logged
    /// event goes into the event's delivered list (a copy of a listed delivery's outcome
    /// counts as one more update); any other is folded per delivery (the latest by time, and
    /// their count; one statement may change a row once) into its row. Each device keeps its
    /// latest outcome. Then the events are counted again.
    @discardableResult
    public func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent] {
        let touched = EventLogCounting.events(of: outcomes)
        let logger = logger
        return try await database.withTransaction { db in
            var logged: [EventKey: LoggedEventRow] = [:]
            if !touched.isEmpty {
                let keys = Array(Set(touched.map(\.logKey))).sorted()
                for (key, app, eventId, source, kind, acceptedAt, deliveries, completedAfter, list) in try await db.run("""
                    SELECT key, app, eventId, source, kind, acceptedAt, deliveries, completedAfter, deliveredList FROM eventLog
                    WHERE key = ANY(\(keys)::bigint[]) ORDER BY key, app, eventId FOR UPDATE
                    """, logger: logger).decode((Int64, String, String, String, String, Int64, Int32, Int32?, Data?).self) {
                    let event = EventKey(app: app, eventId: eventId)
                    guard touched.contains(event) else { continue }
                    logged[event] = LoggedEventRow(
                        id: key, source: source, kind: kind, acceptedAt: acceptedAt, deliveries: Int(deliveries), completedAfter: completedAfter.map(Int64.init),
                        list: DeliveredList(list))
                }
            }
            // The rows of deliveries about to be listed go; their updates carry over.
            func listable(_ outcome: Outcome) -> Bool {
                guard let row = logged[EventKey(app: outcome.app, eventId: outcome.eventId)] else { return false }
                return LoggedEventRow.isListable(outcome, acceptedAt: row.acceptedAt)
            }
            let moving = Array(Set(outcomes.filter(listable).map { [$0.app, $0.deliveryId] })).sorted { $0.lexicographicallyPrecedes($1) }
            var earlier: [[String]: Int] = [:]
            if !moving.isEmpty {
                for (app, deliveryId, updates) in try await db.run("""
                    DELETE FROM outcomes WHERE (app, deliveryId) IN (SELECT * FROM unnest(\(moving.map { $0[0] })::text[], \(moving.map { $0[1] })::text[]))
                    RETURNING app, deliveryId, updates
                    """, logger: logger).decode((String, String, Int).self) {
                    earlier[[app, deliveryId]] = updates
                }
            }
            var rows: [Outcome] = []
            var devices: [Outcome] = []
            var delivered = DeliveredPerMinute()
            for outcome in outcomes {
                let event = EventKey(app: outcome.app, eventId: outcome.eventId)
                if var row = logged[event] {
                    let disposition = row.dispose(outcome)
                    if disposition == .listed {
                        // Outcomes of this delivery earlier in the batch count as its updates.
                        let before = rows.count
                        rows.removeAll { $0.app == outcome.app && $0.deliveryId == outcome.deliveryId }
                        row.listDelivered(outcome, updates: (earlier.removeValue(forKey: [outcome.app, outcome.deliveryId]) ?? 0) + before - rows.count + 1)
                    }
                    logged[event] = row
                    if disposition == .copy { continue }
                    if disposition == .listed {
                        delivered.add(app: outcome.app, at: outcome.at, platform: outcome.platform?.rawValue)
                        devices.append(outcome)
                        continue
                    }
                }
                rows.append(outcome)
                devices.append(outcome)
            }
            try await Self.upsert(rows, db, logger: logger)
            try await Self.upsertDevices(devices, db, logger: logger)
            try await Self.add(delivered, db, logger: logger)
            guard !logged.isEmpty else { return [] }
            return try await Self.count(&logged, db, now: Date(), logger: logger)
        }
    }

    /// Adds to the per-minute counters of delivered outcomes.
    static func add(_ delivered: DeliveredPerMinute, _ db: PostgresConnection, logger: Logger) async throws {
        let counters = delivered.sorted
        guard !counters.isEmpty else { return }
        try await db.run("""
            INSERT INTO deliveredPerMinute (app, minute, platform, count)
            SELECT * FROM unnest(\(counters.map(\.key.app))::text[], \(counters.map(\.key.minute))::bigint[], \(counters.map(\.key.platform))::text[],
                \(counters.map { Int64($0.count) })::bigint[])
            ON CONFLICT (app, minute, platform) DO UPDATE SET count = deliveredPerMinute.count + excluded.count
            """, logger: logger)
    }

    /// Writes outcome rows: the latest per delivery, and how many came.
    static func upsert(_ outcomes: [Outcome], _ db: PostgresConnection, logger: Logger) async throws {
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
    }

    /// Keeps each device's latest outcome.
    static func upsertDevices(_ outcomes: [Outcome], _ db: PostgresConnection, logger: Logger) async throws {
        var devices: [String: Outcome] = [:]
        for outcome in outcomes {
            guard let deviceId = outcome.deviceId else { continue }
            let device = outcome.app + "\u{1}" + deviceId
            if devices[device].map({ outcome.at >= $0.at }) ?? true { devices[device] = outcome }
        }
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
    /// those whose deliveries all have a final outcome now, writes the rows back, and returns
    /// the events this call completed.
    static func count(_ logged: inout [EventKey: LoggedEventRow], _ db: PostgresConnection, now: Date, logger: Logger) async throws -> [CompletedEvent] {
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
        for key in keys {
            var event = logged[key]!
            var count = EventCounts(grouped[key] ?? [])
            count.delivered += event.list.count
            let finished = event.completedAfter == nil && count.final >= event.deliveries
            if finished { event.completedAfter = StoredTime.millis(now) - event.acceptedAt }
            counts.append(count)
            logged[key] = event
            if finished {
                completed.append(CompletedEvent(app: key.app, summary: EventSummary(
                    eventId: key.eventId, source: event.source, kind: event.kind, acceptedAt: StoredTime.date(event.acceptedAt), deliveries: event.deliveries,
                    counts: count, completedAt: event.completedAfter.map { StoredTime.date(event.acceptedAt + $0) })))
            }
        }
        let rows = keys.map { logged[$0]! }
        try await db.run("""
            UPDATE eventLog SET counts = decode(NULLIF(t.counts, ''), 'hex'), status = t.status, completedAfter = CASE WHEN t.hasCompleted THEN t.completedAfter END,
                deliveredList = decode(NULLIF(t.list, ''), 'hex')
            FROM unnest(\(rows.map(\.id))::bigint[], \(keys.map(\.app))::text[], \(keys.map(\.eventId))::text[],
                        \(zip(counts, rows).map { StoredCounts.bytes($0, listed: $1.list.count).map { Hex.encode($0) } ?? "" })::text[],
                        \(zip(counts, rows).map { Int16($0.progress(deliveries: $1.deliveries).storedCode) })::smallint[],
                        \(rows.map { Int32(clamping: $0.completedAfter ?? 0) })::integer[], \(rows.map { $0.completedAfter != nil })::bool[],
                        \(rows.map { Hex.encode($0.list.bytes) })::text[])
                AS t(key, app, eventId, counts, status, completedAfter, hasCompleted, list)
            WHERE eventLog.key = t.key AND eventLog.app = t.app AND eventLog.eventId = t.eventId
            """, logger: logger)
        return completed
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
