import Foundation
import GRDB
import HeraldCrypto
import HeraldModel
import HeraldStorage
import Synchronization

/// The registry in SQLite through GRDB (WAL, migrations), in `registration.sqlite` under the
/// data directory: the default store. One `herald-registration` owns a file, so a claim not
/// in this process's in-flight set was left by a process that died and is taken over at once.
public final class SQLiteRegistrationStore: RegistrationStore {
    public static let fileName = "registration.sqlite"

    let database: DatabasePool
    /// The events this process has claimed and not yet marked processed or released.
    private let inFlight = Mutex<Set<EventKey>>([])
    /// SQLite's limit on bound parameters is far above this; chunks keep statements small.
    static let chunk = 500

    /// Opens (creating if needed) `registration.sqlite` in `directory`.
    public init(directory: URL) throws {
        database = try SQLiteDatabase.open(Self.fileName, in: directory, durability: .normal, migrator: Self.migrator)
    }

    // MARK: Devices

    /// Registers or updates a device. A token registered under another device id of the app
    /// moves here (that device is removed); the push-id list is replaced.
    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord {
        try await database.durableWrite { db in
            if let identity {
                // The device of this id and any holding this token, with their users and push ids.
                let statement = try db.cachedStatement(sql: Self.registrationOwnersSQL)
                let rows = try Row.fetchAll(statement, arguments: [app, registration.deviceId, app, registration.token, app])
                try Self.refuseTakeover(of: rows.map { (deviceId: $0["deviceId"], userId: $0["userId"], pushId: $0["pushId"]) }, by: identity)
            }
            let others = try String.fetchAll(db, sql: "SELECT deviceId FROM devices WHERE app = ? AND token = ? AND deviceId != ?",
                                             arguments: [app, registration.token, registration.deviceId])
            for other in others { try Self.delete(db, app: app, deviceId: other) }
            let createdAt = try Date.fetchOne(db, sql: "SELECT createdAt FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, registration.deviceId]) ?? now
            try db.execute(sql: """
                INSERT INTO devices (app, deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, deviceId) DO UPDATE SET platform = excluded.platform, token = excluded.token, os = excluded.os,
                    userId = excluded.userId, locale = excluded.locale, keyId = excluded.keyId, p256dh = excluded.p256dh,
                    auth = excluded.auth, updatedAt = excluded.updatedAt, lastSeenAt = excluded.lastSeenAt
                """, arguments: Self.deviceArguments(app: app, registration, createdAt: createdAt, now: now))
            try db.execute(sql: "DELETE FROM pushIds WHERE app = ? AND deviceId = ?", arguments: [app, registration.deviceId])
            for pushId in Set(registration.pushIds) {
                try db.execute(sql: "INSERT INTO pushIds (app, deviceId, pushId) VALUES (?, ?, ?)", arguments: [app, registration.deviceId, pushId])
            }
            return DeviceRecord(registration: registration, createdAt: createdAt, updatedAt: now, lastSeenAt: now)
        }
    }

    /// The device of an id and those holding a token, with their users and push ids
    /// (arguments: app, deviceId, app, token, app): two index searches, where an OR of the two
    /// conditions would scan the app's devices.
    static let registrationOwnersSQL = """
        SELECT d.deviceId, d.userId, p.pushId FROM (
            SELECT deviceId, userId FROM devices WHERE app = ? AND deviceId = ?
            UNION SELECT deviceId, userId FROM devices WHERE app = ? AND token = ?
        ) d LEFT JOIN pushIds p ON p.app = ? AND p.deviceId = d.deviceId
        """

    private static func deviceArguments(app: String, _ r: DeviceRegistration, createdAt: Date, now: Date) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            app, r.deviceId, r.platform.rawValue, r.token, r.os.rawValue, r.userId, r.locale,
            r.key?.keyId, r.key?.p256dh, r.key?.auth, createdAt, now, now,
        ]
        return StatementArguments(values)
    }

    public func device(app: String, deviceId: String) async throws -> DeviceRecord? {
        try await database.read { db in try Self.devices(db, app: app, where: "deviceId IN", [deviceId]).first }
    }

    /// Removes a device; with `userId`, only if the device belongs to that user.
    public func unregister(app: String, deviceId: String, userId: String?) async throws -> Unregistration {
        try await database.durableWrite { db in
            guard let owner = try Row.fetchOne(db, sql: "SELECT userId FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId]) else {
                return Unregistration(result: .noDevice, detail: "no device \(deviceId)")
            }
            let current: String? = owner["userId"]
            if let userId, current != userId {
                return Unregistration(
                    result: .anotherUsers,
                    detail: "device \(deviceId) belongs to \(current == nil ? "no user" : "another user"), not \(userId): nothing changed")
            }
            try Self.delete(db, app: app, deviceId: deviceId)
            return Unregistration(result: .removed, detail: "removed")
        }
    }

    private static func delete(_ db: Database, app: String, deviceId: String) throws {
        try db.execute(sql: "DELETE FROM pushIds WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
        try db.execute(sql: "DELETE FROM deviceAddressKeys WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
        try db.execute(sql: "DELETE FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
    }

    // MARK: Resolution queries (batched)

    /// Answers a batch's lookup on one read transaction: address keys first (their owners
    /// join the users), then the users' devices and sponsees, the push ids' devices, and the
    /// devices asked for by id. Statements are prepared once per shape and kept by the
    /// connection.
    public func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory {
        try await database.read { db in
            var directory = AudienceDirectory()
            let apps = Set(lookup.users.keys).union(lookup.pushIds.keys).union(lookup.deviceIds.keys).union(lookup.addresses.keys)
            for app in apps.sorted() {
                var users = lookup.users[app] ?? []
                for address in (lookup.addresses[app] ?? []).sorted() {
                    let statement = try db.cachedStatement(sql: "SELECT keyId, publicKey, ownerUserId FROM addressKeys WHERE app = ? AND emailAddressId = ?")
                    if let row = try Row.fetchOne(statement, arguments: [app, address]) {
                        let owner: String? = row["ownerUserId"]
                        directory.add(AddressKey(emailAddressId: address, keyId: row["keyId"], publicKey: row["publicKey"]), owner: owner, deviceId: nil, app: app)
                        if let owner { users.insert(owner) }
                    }
                    let devices = try db.cachedStatement(sql: "SELECT deviceId, keyId, publicKey, ownerUserId FROM deviceAddressKeys WHERE app = ? AND emailAddressId = ?")
                    for row in try Row.fetchAll(devices, arguments: [app, address]) {
                        let owner: String? = row["ownerUserId"]
                        directory.add(AddressKey(emailAddressId: address, keyId: row["keyId"], publicKey: row["publicKey"]), owner: owner, deviceId: row["deviceId"], app: app)
                        if let owner { users.insert(owner) }
                    }
                }
                let userList = users.sorted()
                directory.add(try Self.targets(db, app: app, where: "userId IN", userList), app: app)
                for chunk in userList.chunked(Self.chunk) {
                    let statement = try db.cachedStatement(sql: "SELECT sponseeId, type, value FROM sponsees WHERE app = ? AND sponseeId IN (\(Self.marks(chunk.count)))")
                    for row in try Row.fetchAll(statement, arguments: StatementArguments([app] + chunk)) {
                        directory.add(Sponsee(sponseeId: row["sponseeId"], type: row["type"], value: row["value"]), app: app)
                    }
                }
                var ids = lookup.deviceIds[app] ?? []
                for chunk in (lookup.pushIds[app] ?? []).sorted().chunked(Self.chunk) {
                    let statement = try db.cachedStatement(sql: Self.deviceIdsByPushIdSQL(count: chunk.count))
                    for row in try Row.fetchAll(statement, arguments: StatementArguments([app] + chunk)) {
                        directory.add(pushId: row["pushId"], deviceId: row["deviceId"], app: app)
                        ids.insert(row["deviceId"])
                    }
                }
                directory.add(try Self.targets(db, app: app, where: "deviceId IN", ids.sorted()), app: app)
            }
            return directory
        }
    }

    /// `count` bound-parameter marks, comma-separated.
    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    /// The query of the push ids' devices for `count` push ids (its plan is tested).
    static func deviceIdsByPushIdSQL(count: Int) -> String {
        "SELECT pushId, deviceId FROM pushIds WHERE app = ? AND pushId IN (\(marks(count)))"
    }

    private static func targets(_ db: Database, app: String, where column: String, _ values: [String]) throws -> [DeviceTarget] {
        var targets: [DeviceTarget] = []
        targets.reserveCapacity(values.count)
        for chunk in values.chunked(chunk) {
            let statement = try db.cachedStatement(
                sql: "SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth FROM devices WHERE app = ? AND \(column) (\(marks(chunk.count)))")
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments([app] + chunk))
            while let row = try cursor.next() {
                let keyId: String? = row[6]
                targets.append(DeviceTarget(
                    id: row[0], platform: Platform(rawValue: row[1]) ?? .fcm, token: row[2], os: DeviceOS(rawValue: row[3]) ?? .other,
                    userId: row[4], locale: row[5], key: keyId.map { DeviceKey(keyId: $0, p256dh: row[7], auth: row[8]) }))
            }
        }
        return targets
    }

    /// Devices whose `column` is in `values`, with their push ids, in chunks.
    private static func devices(_ db: Database, app: String, where column: String, _ values: [String]) throws -> [DeviceRecord] {
        var records: [DeviceRecord] = []
        for chunk in values.chunked(chunk) {
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM devices WHERE app = ? AND \(column) (\(marks(chunk.count))) ORDER BY deviceId",
                                        arguments: StatementArguments([app] + chunk))
            guard !rows.isEmpty else { continue }
            var pushIds: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT deviceId, pushId FROM pushIds WHERE app = ? AND deviceId IN (\(marks(rows.count)))",
                                        arguments: StatementArguments([app] + rows.map { $0["deviceId"] as String })) {
                pushIds[row["deviceId"], default: []].append(row["pushId"])
            }
            for row in rows {
                let deviceId: String = row["deviceId"]
                let keyId: String? = row["keyId"]
                let key = keyId.map { DeviceKey(keyId: $0, p256dh: row["p256dh"], auth: row["auth"]) }
                let registration = DeviceRegistration(
                    deviceId: deviceId, platform: Platform(rawValue: row["platform"]) ?? .fcm, token: row["token"],
                    os: DeviceOS(rawValue: row["os"]) ?? .other, userId: row["userId"], pushIds: (pushIds[deviceId] ?? []).sorted(),
                    locale: row["locale"], key: key)
                records.append(DeviceRecord(registration: registration, createdAt: row["createdAt"], updatedAt: row["updatedAt"], lastSeenAt: row["lastSeenAt"]))
            }
        }
        return records
    }

    // MARK: Email-address keys and sponsees

    @discardableResult
    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey {
        try await database.durableWrite { db in
            if let deviceId {
                try db.execute(sql: """
                    INSERT INTO deviceAddressKeys (app, emailAddressId, deviceId, keyId, publicKey, ownerUserId, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app, emailAddressId, deviceId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                        ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                    """, arguments: [app, emailAddressId, deviceId, keyId, publicKeyDER, ownerUserId, now])
                return
            }
            try db.execute(sql: """
                INSERT INTO addressKeys (app, emailAddressId, keyId, publicKey, ownerUserId, updatedAt) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, emailAddressId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                    ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                """, arguments: [app, emailAddressId, keyId, publicKeyDER, ownerUserId, now])
        }
        return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
    }

    @discardableResult
    public func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee {
        try await database.durableWrite { db in
            try db.execute(sql: """
                INSERT INTO sponsees (app, sponseeId, type, value, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, sponseeId) DO UPDATE SET type = excluded.type, value = excluded.value, updatedAt = excluded.updatedAt
                """, arguments: [app, sponsee.sponseeId, sponsee.type, sponsee.value, now])
        }
        return sponsee
    }

    // MARK: Idempotency

    /// Claims a batch of events in one transaction, so that of two copies of an event only
    /// one fans out, even when both are handled at once. A claim is a `processedEvents` row
    /// not yet marked processed, and the event in this process's in-flight set; a claim row
    /// left by a process that died (not in the set) is taken over, as the broker redelivers
    /// that process's events. Finish with `markProcessed(_:)` or `release(_:)`. Should the
    /// transaction fail (a full disk at its commit), the events it put in the set leave it.
    public func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim] {
        let added = Mutex<[EventKey]>([])
        do {
            return try await database.write { db in
                let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO processedEvents (app, eventId, processedAt, claimed) VALUES (?, ?, ?, 1)")
                let state = try db.cachedStatement(sql: "SELECT claimed FROM processedEvents WHERE app = ? AND eventId = ?")
                let stored = now.databaseValue  // converted once: GRDB formats a Date with a DateFormatter
                return try self.inFlight.withLock { inFlight in
                    try events.map { event in
                        try insert.execute(arguments: [event.app, event.eventId, stored])
                        if db.changesCount == 0 {
                            let claimed = try Bool.fetchOne(state, arguments: [event.app, event.eventId]) ?? false
                            if !claimed { return .processed }
                            if inFlight.contains(event) { return .inFlight }
                        }
                        if inFlight.insert(event).inserted { added.withLock { $0.append(event) } }
                        return .claimed
                    }
                }
            }
        } catch {
            await release(added.withLock { $0 })
            throw error
        }
    }

    /// Marks claimed events processed (one transaction) and ends their claims.
    public func markProcessed(_ events: [EventKey], at now: Date) async throws {
        try await database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO processedEvents (app, eventId, processedAt, claimed) VALUES (?, ?, ?, 0)
                ON CONFLICT (app, eventId) DO UPDATE SET claimed = 0, processedAt = excluded.processedAt
                """)
            let stored = now.databaseValue  // converted once: GRDB formats a Date with a DateFormatter
            for event in events { try statement.execute(arguments: [event.app, event.eventId, stored]) }
        }
        await release(events)
    }

    /// Ends claims without marking the events processed (their outputs were not confirmed):
    /// the next copy of each is claimed again.
    public func release(_ events: [EventKey]) async {
        inFlight.withLock { inFlight in for event in events { inFlight.remove(event) } }
    }

    /// Whether the event's deliveries were published (a claim in progress does not count).
    public func isProcessed(app: String, eventId: String) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM processedEvents WHERE app = ? AND eventId = ? AND claimed = 0", arguments: [app, eventId]) ?? false
        }
    }

    /// Forgets processed event ids older than `window`, revocation audit rows older than
    /// `auditWindow` and delivery outcomes older than `outcomeWindow`; returns how many of each.
    public func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM processedEvents WHERE processedAt < ?", arguments: [now.addingTimeInterval(-window)])
            let events = db.changesCount
            try db.execute(sql: "DELETE FROM revokedTokens WHERE revokedAt < ?", arguments: [now.addingTimeInterval(-auditWindow)])
            let revocations = db.changesCount
            try db.execute(sql: "DELETE FROM outcomes WHERE at < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            let outcomes = db.changesCount
            try db.execute(sql: "DELETE FROM eventLog WHERE acceptedAt < ?", arguments: [now.addingTimeInterval(-outcomeWindow)])
            return PruneCounts(events: events, revocations: revocations, outcomes: outcomes, logged: db.changesCount)
        }
    }

    // MARK: Outcomes

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
    private static func count(_ db: Database, _ events: [EventKey], now: Date) throws -> [CompletedEvent] {
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

    // MARK: Event log

    /// Logs events about to be fanned out; an event fanned out again (after a failure)
    /// keeps its counts and takes its new number of deliveries.
    public func logEvents(_ events: [LoggedEvent]) async throws {
        guard !events.isEmpty else { return }
        try await database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO eventLog (app, eventId, source, kind, acceptedAt, deliveries) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, eventId) DO UPDATE SET deliveries = excluded.deliveries
                """)
            for event in events {
                try statement.execute(arguments: [event.app, event.eventId, event.source, event.kind, event.acceptedAt, event.deliveries])
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
                SELECT eventId, source, kind, acceptedAt, deliveries, delivered, failed, expired, revoked, filtered, retrying, completedAt,
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
                    counts: counts, completedAt: row["completedAt"])
            }
            let next = rows.count > query.limit ? page.last.map { PageCursor(position: $0["position"], id: $0["eventId"]).encoded } : nil
            return EventPage(events: events, nextCursor: next)
        }
    }

    /// A page of the app's devices, most recently registered first, with each one's latest
    /// outcome.
    public func devices(app: String, _ query: DeviceQuery) async throws -> DevicePage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        return try await database.read { db in
            var conditions = ["app = ?"]
            var arguments: [(any DatabaseValueConvertible)?] = [app]
            if let userId = query.userId { conditions.append("userId = ?"); arguments.append(userId) }
            if let platform = query.platform { conditions.append("platform = ?"); arguments.append(platform.rawValue) }
            if let since = query.registeredSince { conditions.append("createdAt >= ?"); arguments.append(since) }
            if let suffix = query.tokenSuffix { conditions.append("substr(token, -?) = ?"); arguments += [suffix.unicodeScalars.count, suffix] }
            if let status = query.lastOutcome {
                conditions.append("(SELECT o.status FROM outcomes o WHERE o.app = devices.app AND o.deviceId = devices.deviceId ORDER BY o.at DESC LIMIT 1) = ?")
                arguments.append(status.rawValue)
            }
            if let cursor {
                conditions.append("(createdAt, deviceId) < (?, ?)")
                arguments += [cursor.position, cursor.id]
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT deviceId, CAST(createdAt AS TEXT) AS position FROM devices
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY createdAt DESC, deviceId DESC LIMIT ?
                """, arguments: StatementArguments(arguments + [query.limit + 1]))
            let page = Array(rows.prefix(query.limit))
            let ids: [String] = page.map { $0["deviceId"] }
            let records = Dictionary(try Self.devices(db, app: app, where: "deviceId IN", ids).map { ($0.registration.deviceId, $0) }, uniquingKeysWith: { a, _ in a })
            let last = try db.cachedStatement(sql: """
                SELECT eventId, deliveryId, status, providerCode, at FROM outcomes WHERE app = ? AND deviceId = ? ORDER BY at DESC LIMIT 1
                """)
            let devices = try ids.compactMap { id -> DeviceRecord? in
                guard var record = records[id] else { return nil }
                if let row = try Row.fetchOne(last, arguments: [app, id]) {
                    record.lastOutcome = DeviceOutcome(
                        eventId: row["eventId"], deliveryId: row["deliveryId"], status: OutcomeStatus(rawValue: row["status"]) ?? .failed,
                        providerCode: row["providerCode"], at: row["at"])
                }
                return record
            }
            let next = rows.count > query.limit ? page.last.map { PageCursor(position: $0["position"], id: $0["deviceId"]).encoded } : nil
            return DevicePage(devices: devices, nextCursor: next)
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

    // MARK: Revocation

    /// Removes the device holding a dead token, unless it was registered again after the
    /// failed send, and keeps an audit row either way. A webhook revocation (the endpoint
    /// answered 410 Gone) names the registration by its id instead: a device of an app in
    /// webhook mode, or a sponsee (`sponsee:<id>`), whose com method is removed.
    public func revoke(_ revocation: TokenRevoked, now: Date) async throws -> RevocationResult {
        try await database.write { db in
            let result: RevocationResult
            if revocation.platform == .webhook {
                result = try Self.revokeForwarded(db, revocation)
            } else if let row = try Row.fetchOne(db, sql: "SELECT deviceId, updatedAt, userId FROM devices WHERE app = ? AND platform = ? AND token = ?",
                                                 arguments: [revocation.app, revocation.platform.rawValue, revocation.token]) {
                let deviceId: String = row["deviceId"]
                let updatedAt: Date = row["updatedAt"]
                if updatedAt > revocation.failedSendAt {
                    result = .renewed(deviceId: deviceId)
                } else {
                    try Self.delete(db, app: revocation.app, deviceId: deviceId)
                    result = .removed(deviceId: deviceId, userId: row["userId"])
                }
            } else {
                result = .unknown
            }
            let outcome = result.audit
            try db.execute(sql: """
                INSERT INTO revokedTokens (app, platform, token, deviceId, reason, failedSendAt, revokedAt, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [revocation.app, revocation.platform.rawValue, revocation.token, revocation.deviceId, revocation.reason, revocation.failedSendAt, now, outcome])
            return result
        }
    }

    /// The registration behind a webhook delivery whose endpoint answered 410, by id.
    private static func revokeForwarded(_ db: Database, _ revocation: TokenRevoked) throws -> RevocationResult {
        guard let id = revocation.deviceId else { return .unknown }
        let sponsee = id.hasPrefix(AudienceResolver.sponseePrefix) ? String(id.dropFirst(AudienceResolver.sponseePrefix.count)) : nil
        let row = try sponsee.map {
            try Row.fetchOne(db, sql: "SELECT updatedAt, NULL AS userId FROM sponsees WHERE app = ? AND sponseeId = ?", arguments: [revocation.app, $0])
        } ?? Row.fetchOne(db, sql: "SELECT updatedAt, userId FROM devices WHERE app = ? AND deviceId = ?", arguments: [revocation.app, id])
        guard let row else { return .unknown }
        let updatedAt: Date = row["updatedAt"]
        if updatedAt > revocation.failedSendAt { return .renewed(deviceId: id) }
        if let sponsee {
            try db.execute(sql: "DELETE FROM sponsees WHERE app = ? AND sponseeId = ?", arguments: [revocation.app, sponsee])
        } else {
            try delete(db, app: revocation.app, deviceId: id)
        }
        return .removed(deviceId: id, userId: row["userId"])
    }

    /// Revocation audit rows for a token (newest first).
    public func revocations(app: String, token: String) async throws -> [RevocationRecord] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT reason, result, revokedAt FROM revokedTokens WHERE app = ? AND token = ? ORDER BY revokedAt DESC", arguments: [app, token])
                .map { RevocationRecord(reason: $0["reason"], result: $0["result"], revokedAt: $0["revokedAt"]) }
        }
    }

    // MARK: Schema

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: devices, push ids, address keys, sponsees, processed events, revoked tokens") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    app TEXT NOT NULL, deviceId TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, os TEXT NOT NULL,
                    userId TEXT, locale TEXT, keyId TEXT, p256dh TEXT, auth TEXT,
                    createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL, lastSeenAt DATETIME NOT NULL,
                    PRIMARY KEY (app, deviceId));
                CREATE INDEX devicesByUser ON devices (app, userId);
                CREATE INDEX devicesByToken ON devices (app, token);
                CREATE TABLE pushIds (app TEXT NOT NULL, deviceId TEXT NOT NULL, pushId TEXT NOT NULL, PRIMARY KEY (app, deviceId, pushId));
                CREATE INDEX pushIdsByPushId ON pushIds (app, pushId);
                CREATE TABLE addressKeys (
                    app TEXT NOT NULL, emailAddressId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL, ownerUserId TEXT,
                    updatedAt DATETIME NOT NULL, PRIMARY KEY (app, emailAddressId));
                CREATE TABLE sponsees (
                    app TEXT NOT NULL, sponseeId TEXT NOT NULL, type INTEGER NOT NULL, value TEXT NOT NULL, updatedAt DATETIME NOT NULL,
                    PRIMARY KEY (app, sponseeId));
                CREATE TABLE processedEvents (app TEXT NOT NULL, eventId TEXT NOT NULL, processedAt DATETIME NOT NULL, PRIMARY KEY (app, eventId));
                CREATE INDEX processedEventsByTime ON processedEvents (processedAt);
                CREATE TABLE revokedTokens (
                    app TEXT NOT NULL, platform TEXT NOT NULL, token TEXT NOT NULL, deviceId TEXT, reason TEXT NOT NULL,
                    failedSendAt DATETIME NOT NULL, revokedAt DATETIME NOT NULL, result TEXT NOT NULL);
                CREATE INDEX revokedTokensByTime ON revokedTokens (revokedAt);
                CREATE INDEX revokedTokensByToken ON revokedTokens (app, token);
                """)
        }
        migrator.registerMigration("v2: outcomes") { db in
            try db.execute(sql: """
                CREATE TABLE outcomes (
                    app TEXT NOT NULL, deliveryId TEXT NOT NULL, eventId TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, providerCode TEXT,
                    at DATETIME NOT NULL, updates INTEGER NOT NULL, PRIMARY KEY (app, deliveryId));
                CREATE INDEX outcomesByEvent ON outcomes (app, eventId);
                CREATE INDEX outcomesByTime ON outcomes (at);
                """)
        }
        migrator.registerMigration("v3: event claims") { db in
            // 1 while a process fans the event out; 0 once its deliveries are confirmed.
            try db.execute(sql: "ALTER TABLE processedEvents ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v4: a covering push-id index") { db in
            // With (app, pushId) alone, SQLite preferred the primary key's covering (app, …)
            // prefix: a scan of every push id of the app for each event.
            try db.execute(sql: """
                DROP INDEX pushIdsByPushId;
                CREATE INDEX pushIdsByPushId ON pushIds (app, pushId, deviceId);
                """)
        }
        migrator.registerMigration("v5: the event log, an outcome's provider and device") { db in
            try db.execute(sql: """
                ALTER TABLE outcomes ADD COLUMN platform TEXT;
                ALTER TABLE outcomes ADD COLUMN deviceId TEXT;
                CREATE INDEX outcomesByDevice ON outcomes (app, deviceId, at);
                CREATE INDEX outcomesByAppTime ON outcomes (app, at);
                CREATE TABLE eventLog (
                    app TEXT NOT NULL, eventId TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, acceptedAt DATETIME NOT NULL,
                    deliveries INTEGER NOT NULL, delivered INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
                    expired INTEGER NOT NULL DEFAULT 0, revoked INTEGER NOT NULL DEFAULT 0, filtered INTEGER NOT NULL DEFAULT 0,
                    retrying INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'pending', completedAt DATETIME,
                    PRIMARY KEY (app, eventId));
                CREATE INDEX eventLogByTime ON eventLog (app, acceptedAt, eventId);
                CREATE INDEX eventLogByStatus ON eventLog (app, status, acceptedAt, eventId);
                CREATE INDEX eventLogForPruning ON eventLog (acceptedAt);
                CREATE INDEX devicesByCreation ON devices (app, createdAt, deviceId);
                CREATE INDEX devicesByUserCreation ON devices (app, userId, createdAt, deviceId);
                """)
        }
        migrator.registerMigration("v6: one address key per address and device") { db in
            try db.execute(sql: """
                CREATE TABLE deviceAddressKeys (
                    app TEXT NOT NULL, emailAddressId TEXT NOT NULL, deviceId TEXT NOT NULL, keyId TEXT NOT NULL, publicKey TEXT NOT NULL,
                    ownerUserId TEXT, updatedAt DATETIME NOT NULL, PRIMARY KEY (app, emailAddressId, deviceId));
                CREATE INDEX deviceAddressKeysByDevice ON deviceAddressKeys (app, deviceId);
                """)
        }
        return migrator
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
