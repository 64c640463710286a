import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as an `AudienceStore`: resolving an event's audience in batches.
extension SQLiteRegistrationStore {
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

    static func targets(_ db: Database, app: String, where column: String, _ values: [String]) throws -> [DeviceTarget] {
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
    static func devices(_ db: Database, app: String, where column: String, _ values: [String]) throws -> [DeviceRecord] {
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
}
