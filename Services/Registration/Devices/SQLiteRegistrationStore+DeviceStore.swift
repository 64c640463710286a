import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `DeviceStore`: its devices: registration (with a client token's ownership checks), lookup, removal, revocation, listing.
extension SQLiteRegistrationStore {
    /// Registers or updates a device. A token registered under another device id of the app
    /// moves here (that device is removed); the push-id list is replaced.
    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord {
        try await database.durableWrite { db in
            if let identity {
                // The device of this id and any holding this token, with their users and push ids.
                let statement = try db.cachedStatement(sql: Self.registrationOwnersSQL)
                let rows = try Row.fetchAll(statement, arguments: [app, registration.deviceId, app, registration.token, app])
                try Self.refuseTakeover(
                    of: rows.map { (deviceId: $0["deviceId"], userId: $0["userId"], pushId: $0["pushId"], token: $0["token"]) }, registering: registration.token, by: identity)
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
        SELECT d.deviceId, d.userId, d.token, p.pushId FROM (
            SELECT deviceId, userId, token FROM devices WHERE app = ? AND deviceId = ?
            UNION SELECT deviceId, userId, token FROM devices WHERE app = ? AND token = ?
        ) d LEFT JOIN pushIds p ON p.app = ? AND p.deviceId = d.deviceId
        """

    static func deviceArguments(app: String, _ r: DeviceRegistration, createdAt: Date, now: Date) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            app, r.deviceId, r.platform.rawValue, r.token, r.os.rawValue, r.userId, r.locale,
            r.key?.keyId, r.key?.p256dh, r.key?.auth, createdAt, now, now,
        ]
        return StatementArguments(values)
    }

    public func device(app: String, deviceId: String) async throws -> DeviceRecord? {
        try await database.read { db in try Self.devices(db, app: app, where: "deviceId IN", [deviceId]).first }
    }

    /// Removes a device; with `userId`, only if the device belongs to that user; with `token`,
    /// only if it holds that push token.
    public func unregister(app: String, deviceId: String, userId: String?, token: String?) async throws -> Unregistration {
        try await database.durableWrite { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT userId, token FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId]) else {
                return Unregistration(result: .noDevice, detail: "no device \(deviceId)")
            }
            if let kept = Self.keep(deviceId: deviceId, owner: row["userId"], held: row["token"], userId: userId, token: token) { return kept }
            try Self.delete(db, app: app, deviceId: deviceId)
            return Unregistration(result: .removed, detail: "removed")
        }
    }

    static func delete(_ db: Database, app: String, deviceId: String) throws {
        try db.execute(sql: "DELETE FROM pushIds WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
        try db.execute(sql: "DELETE FROM deviceAddressKeys WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
        try db.execute(sql: "DELETE FROM devices WHERE app = ? AND deviceId = ?", arguments: [app, deviceId])
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
                conditions.append("(SELECT o.status FROM deviceOutcomes o WHERE o.app = devices.app AND o.deviceId = devices.deviceId) = ?")
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
                SELECT eventId, deliveryId, status, providerCode, at FROM deviceOutcomes WHERE app = ? AND deviceId = ?
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
    static func revokeForwarded(_ db: Database, _ revocation: TokenRevoked) throws -> RevocationResult {
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
}
