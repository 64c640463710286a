import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as an `AudienceStore`: resolving an event's audience in batches.
extension PostgresRegistrationStore {
    /// Answers a batch's lookup on one connection: per app, the address keys (their owners
    /// join the users), the users' devices and sponsees, the push ids' device ids, then the
    /// devices asked for by id; each a single query over an array.
    public func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory {
        let logger = logger
        return try await database.withConnection { db in
            var directory = AudienceDirectory()
            let apps = Set(lookup.users.keys).union(lookup.pushIds.keys).union(lookup.deviceIds.keys).union(lookup.addresses.keys)
            for app in apps.sorted() {
                var users = lookup.users[app] ?? []
                let addresses = (lookup.addresses[app] ?? []).sorted()
                if !addresses.isEmpty {
                    let rows = try await db.run(
                        "SELECT emailAddressId, keyId, publicKey, ownerUserId FROM addressKeys WHERE app = \(app) AND emailAddressId = ANY(\(addresses))",
                        logger: logger)
                    for (address, keyId, publicKey, owner) in try rows.decode((String, String, String, String?).self) {
                        directory.add(AddressKey(emailAddressId: address, keyId: keyId, publicKey: publicKey), owner: owner, deviceId: nil, app: app)
                        if let owner { users.insert(owner) }
                    }
                    let devices = try await db.run(
                        "SELECT emailAddressId, deviceId, keyId, publicKey, ownerUserId FROM deviceAddressKeys WHERE app = \(app) AND emailAddressId = ANY(\(addresses))",
                        logger: logger)
                    for (address, deviceId, keyId, publicKey, owner) in try devices.decode((String, String, String, String, String?).self) {
                        directory.add(AddressKey(emailAddressId: address, keyId: keyId, publicKey: publicKey), owner: owner, deviceId: deviceId, app: app)
                        if let owner { users.insert(owner) }
                    }
                }
                if !users.isEmpty {
                    let list = users.sorted()
                    directory.add(try await Self.targets(db, app: app, column: .userId, list, logger: logger), app: app)
                    let rows = try await db.run("SELECT sponseeId, type, value FROM sponsees WHERE app = \(app) AND sponseeId = ANY(\(list))", logger: logger)
                    for (id, type, value) in try rows.decode((String, Int, String).self) {
                        directory.add(Sponsee(sponseeId: id, type: type, value: value), app: app)
                    }
                }
                var ids = lookup.deviceIds[app] ?? []
                let pushIds = (lookup.pushIds[app] ?? []).sorted()
                if !pushIds.isEmpty {
                    let rows = try await db.run("SELECT pushId, deviceId FROM pushIds WHERE app = \(app) AND pushId = ANY(\(pushIds))", logger: logger)
                    for (pushId, deviceId) in try rows.decode((String, String).self) {
                        directory.add(pushId: pushId, deviceId: deviceId, app: app)
                        ids.insert(deviceId)
                    }
                }
                if !ids.isEmpty {
                    directory.add(try await Self.targets(db, app: app, column: .deviceId, ids.sorted(), logger: logger), app: app)
                }
            }
            return directory
        }
    }

    enum TargetColumn { case userId, deviceId }

    static func targets(_ db: PostgresConnection, app: String, column: TargetColumn, _ values: [String], logger: Logger) async throws -> [DeviceTarget] {
        let rows: [PostgresRow]
        switch column {
        case .userId:
            rows = try await db.run("""
                SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth FROM devices WHERE app = \(app) AND userId = ANY(\(values))
                """, logger: logger)
        case .deviceId:
            rows = try await db.run("""
                SELECT deviceId, platform, token, os, userId, locale, keyId, p256dh, auth FROM devices WHERE app = \(app) AND deviceId = ANY(\(values))
                """, logger: logger)
        }
        var targets: [DeviceTarget] = []
        for (id, platform, token, os, userId, locale, keyId, p256dh, auth)
            in try rows.decode((String, String, String, String, String?, String?, String?, String?, String?).self) {
            targets.append(DeviceTarget(
                id: id, platform: Platform(rawValue: platform) ?? .fcm, token: token, os: DeviceOS(rawValue: os) ?? .other,
                userId: userId, locale: locale, key: keyId.map { DeviceKey(keyId: $0, p256dh: p256dh ?? "", auth: auth ?? "") }))
        }
        return targets
    }
}
