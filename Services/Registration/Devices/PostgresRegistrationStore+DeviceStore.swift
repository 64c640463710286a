import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `DeviceStore`: its devices: registration (with a client token's ownership checks), lookup, removal, revocation, listing.
extension PostgresRegistrationStore {
    public func register(app: String, _ r: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord {
        let logger = logger
        return try await database.withTransaction { db in
            // Registrations of one token take turns, so two replicas cannot both keep it.
            try await db.run("SELECT pg_advisory_xact_lock(hashtext(\(app)), hashtext(\(r.token)))", logger: logger)
            if let identity {
                // The device of this id and any holding this token, locked for this transaction.
                let rows = try await db.run("""
                    SELECT d.deviceId, d.userId, p.pushId, d.token FROM devices d LEFT JOIN pushIds p ON p.app = d.app AND p.deviceId = d.deviceId
                    WHERE d.app = \(app) AND d.deviceId IN (
                        SELECT deviceId FROM devices WHERE app = \(app) AND deviceId = \(r.deviceId)
                        UNION ALL SELECT deviceId FROM devices WHERE app = \(app) AND token = \(r.token))
                    FOR UPDATE OF d
                    """, logger: logger)
                var owners: [(deviceId: String, userId: String?, pushId: String?, token: String)] = []
                for (id, userId, pushId, token) in try rows.decode((String, String?, String?, String).self) { owners.append((id, userId, pushId, token)) }
                try Self.refuseTakeover(of: owners, registering: r.token, by: identity)
            }
            try await db.run("""
                DELETE FROM pushIds WHERE app = \(app) AND deviceId IN (SELECT deviceId FROM devices WHERE app = \(app) AND token = \(r.token) AND deviceId <> \(r.deviceId))
                """, logger: logger)
            try await db.run("DELETE FROM devices WHERE app = \(app) AND token = \(r.token) AND deviceId <> \(r.deviceId)", logger: logger)
            let rows = try await db.run("""
                INSERT INTO devices (app, deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt)
                VALUES (\(app), \(r.deviceId), \(r.platform.rawValue), \(r.token), \(r.os.rawValue), \(r.userId), \(r.locale),
                        \(r.key?.keyId), \(r.key?.p256dh), \(r.key?.auth), \(now), \(now), \(now))
                ON CONFLICT (app, deviceId) DO UPDATE SET platform = excluded.platform, token = excluded.token, os = excluded.os,
                    userId = excluded.userId, locale = excluded.locale, keyId = excluded.keyId, p256dh = excluded.p256dh,
                    auth = excluded.auth, updatedAt = excluded.updatedAt, lastSeenAt = excluded.lastSeenAt
                RETURNING createdAt
                """, logger: logger)
            var createdAt = now
            for stored in try rows.decode(Date.self) { createdAt = stored }
            try await db.run("DELETE FROM pushIds WHERE app = \(app) AND deviceId = \(r.deviceId)", logger: logger)
            let pushIds = Set(r.pushIds).sorted()
            if !pushIds.isEmpty {
                try await db.run("""
                    INSERT INTO pushIds (app, deviceId, pushId) SELECT \(app), \(r.deviceId), unnest(\(pushIds)::text[]) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            return DeviceRecord(registration: r, createdAt: createdAt, updatedAt: now, lastSeenAt: now)
        }
    }

    public func device(app: String, deviceId: String) async throws -> DeviceRecord? {
        let rows = try await database.query("""
            SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt
            FROM devices WHERE app = \(app) AND deviceId = \(deviceId)
            """, logger: logger)
        var record: DeviceRecord?
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt)
            in try rows.decode((String, String, String, String, String?, String?, String?, String?, String?, Date, Date, Date).self) {
            var pushIds: [String] = []
            for pushId in try await database.query(
                "SELECT pushId FROM pushIds WHERE app = \(app) AND deviceId = \(id) ORDER BY pushId", logger: logger).decode(String.self) {
                pushIds.append(pushId)
            }
            let key = keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }
            let registration = DeviceRegistration(
                deviceId: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, pushIds: pushIds, locale: locale, key: key)
            record = DeviceRecord(registration: registration, createdAt: createdAt, updatedAt: updatedAt, lastSeenAt: lastSeenAt)
        }
        return record
    }

    public func unregister(app: String, deviceId: String, userId: String?, token: String?) async throws -> Unregistration {
        let logger = logger
        return try await database.withTransaction { db in
            var found: (owner: String?, token: String)?
            for (owner, held) in try await db.run(
                "SELECT userId, token FROM devices WHERE app = \(app) AND deviceId = \(deviceId) FOR UPDATE", logger: logger).decode((String?, String).self) {
                found = (owner, held)
            }
            guard let found else { return Unregistration(result: .noDevice, detail: "no device \(deviceId)") }
            if let kept = Self.keep(deviceId: deviceId, owner: found.owner, held: found.token, userId: userId, token: token) { return kept }
            try await Self.delete(db, app: app, deviceId: deviceId, logger: logger)
            return Unregistration(result: .removed, detail: "removed")
        }
    }

    static func delete(_ db: PostgresConnection, app: String, deviceId: String, logger: Logger) async throws {
        try await db.run("DELETE FROM pushIds WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
        try await db.run("DELETE FROM deviceAddressKeys WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
        try await db.run("DELETE FROM devices WHERE app = \(app) AND deviceId = \(deviceId)", logger: logger)
    }

    public func devices(app: String, _ query: DeviceQuery) async throws -> DevicePage {
        let cursor = try query.cursor.map(PageCursor.init(encoded:))
        let micros = try Self.micros(cursor)
        let platform = query.platform?.rawValue
        let lastOutcome = query.lastOutcome?.rawValue
        let rows = try await database.query("""
            SELECT deviceId, (extract(epoch FROM createdAt) * 1000000)::bigint FROM devices d
            WHERE app = \(app) AND (\(query.userId)::text IS NULL OR userId = \(query.userId)) AND (\(platform)::text IS NULL OR platform = \(platform))
                AND (\(query.registeredSince)::timestamptz IS NULL OR createdAt >= \(query.registeredSince))
                AND (\(query.tokenSuffix)::text IS NULL OR right(token, char_length(\(query.tokenSuffix))) = \(query.tokenSuffix))
                AND (\(lastOutcome)::text IS NULL
                     OR (SELECT o.status FROM deviceOutcomes o WHERE o.app = d.app AND o.deviceId = d.deviceId) = \(lastOutcome))
                AND (\(micros)::bigint IS NULL OR (createdAt, deviceId) < ('epoch'::timestamptz + \(micros)::bigint * interval '1 microsecond', \(cursor?.id)::text))
            ORDER BY createdAt DESC, deviceId DESC LIMIT \(Int64(query.limit + 1))
            """, logger: logger)
        var page: [(id: String, position: Int64)] = []
        for (id, position) in try rows.decode((String, Int64).self) { page.append((id, position)) }
        let more = page.count > query.limit
        page = Array(page.prefix(query.limit))
        let ids = page.map(\.id)
        guard !ids.isEmpty else { return DevicePage(devices: [], nextCursor: nil) }
        var pushIds: [String: [String]] = [:]
        for (deviceId, pushId) in try await database.query(
            "SELECT deviceId, pushId FROM pushIds WHERE app = \(app) AND deviceId = ANY(\(ids)::text[]) ORDER BY pushId", logger: logger).decode((String, String).self) {
            pushIds[deviceId, default: []].append(pushId)
        }
        var outcomes: [String: DeviceOutcome] = [:]
        for (deviceId, eventId, deliveryId, status, providerCode, at) in try await database.query("""
            SELECT deviceId, eventId, deliveryId, status, providerCode, at FROM deviceOutcomes WHERE app = \(app) AND deviceId = ANY(\(ids)::text[])
            """, logger: logger).decode((String, String, String, String, String?, Date).self) {
            outcomes[deviceId] = DeviceOutcome(eventId: eventId, deliveryId: deliveryId, status: OutcomeStatus(rawValue: status) ?? .failed, providerCode: providerCode, at: at)
        }
        var records: [String: DeviceRecord] = [:]
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt) in try await database.query("""
            SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth, createdAt, updatedAt, lastSeenAt
            FROM devices WHERE app = \(app) AND deviceId = ANY(\(ids)::text[])
            """, logger: logger).decode((String, String, String, String, String?, String?, String?, String?, String?, Date, Date, Date).self) {
            let key = keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }
            let registration = DeviceRegistration(
                deviceId: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, pushIds: pushIds[id] ?? [], locale: locale, key: key)
            records[id] = DeviceRecord(registration: registration, createdAt: createdAt, updatedAt: updatedAt, lastSeenAt: lastSeenAt, lastOutcome: outcomes[id])
        }
        let next = more ? page.last.map { PageCursor(position: String($0.position), id: $0.id).encoded } : nil
        return DevicePage(devices: ids.compactMap { records[$0] }, nextCursor: next)
    }

    public func revoke(_ revocation: TokenRevoked, now: Date) async throws -> RevocationResult {
        let logger = logger
        return try await database.withTransaction { db in
            let result: RevocationResult
            if revocation.platform == .webhook {
                result = try await Self.revokeForwarded(db, revocation, logger: logger)
            } else {
                var found: (String, Date, String?)?
                let rows = try await db.run("""
                    SELECT deviceId, updatedAt, userId FROM devices WHERE app = \(revocation.app) AND platform = \(revocation.platform.rawValue) AND token = \(revocation.token) FOR UPDATE
                    """, logger: logger)
                for row in try rows.decode((String, Date, String?).self) { found = row }
                if let (deviceId, updatedAt, userId) = found {
                    if updatedAt > revocation.failedSendAt {
                        result = .renewed(deviceId: deviceId)
                    } else {
                        try await Self.delete(db, app: revocation.app, deviceId: deviceId, logger: logger)
                        result = .removed(deviceId: deviceId, userId: userId)
                    }
                } else {
                    result = .unknown
                }
            }
            try await db.run("""
                INSERT INTO revokedTokens (app, platform, token, deviceId, reason, failedSendAt, revokedAt, result)
                VALUES (\(revocation.app), \(revocation.platform.rawValue), \(revocation.token), \(revocation.deviceId), \(revocation.reason),
                        \(revocation.failedSendAt), \(now), \(result.audit))
                """, logger: logger)
            return result
        }
    }

    static func revokeForwarded(_ db: PostgresConnection, _ revocation: TokenRevoked, logger: Logger) async throws -> RevocationResult {
        guard let id = revocation.deviceId else { return .unknown }
        let sponsee = id.hasPrefix(AudienceResolver.sponseePrefix) ? String(id.dropFirst(AudienceResolver.sponseePrefix.count)) : nil
        let rows: [PostgresRow]
        if let sponsee {
            rows = try await db.run("SELECT updatedAt, NULL::TEXT FROM sponsees WHERE app = \(revocation.app) AND sponseeId = \(sponsee) FOR UPDATE", logger: logger)
        } else {
            rows = try await db.run("SELECT updatedAt, userId FROM devices WHERE app = \(revocation.app) AND deviceId = \(id) FOR UPDATE", logger: logger)
        }
        var stored: (Date, String?)?
        for row in try rows.decode((Date, String?).self) { stored = row }
        guard let (updatedAt, userId) = stored else { return .unknown }
        if updatedAt > revocation.failedSendAt { return .renewed(deviceId: id) }
        if let sponsee {
            try await db.run("DELETE FROM sponsees WHERE app = \(revocation.app) AND sponseeId = \(sponsee)", logger: logger)
        } else {
            try await delete(db, app: revocation.app, deviceId: id, logger: logger)
        }
        return .removed(deviceId: id, userId: userId)
    }

    public func revocations(app: String, token: String) async throws -> [RevocationRecord] {
        var records: [RevocationRecord] = []
        let rows = try await database.query(
            "SELECT reason, result, revokedAt FROM revokedTokens WHERE app = \(app) AND token = \(token) ORDER BY revokedAt DESC", logger: logger)
        for (reason, result, revokedAt) in try rows.decode((String, String, Date).self) {
            records.append(RevocationRecord(reason: reason, result: result, revokedAt: revokedAt))
        }
        return records
    }
}
