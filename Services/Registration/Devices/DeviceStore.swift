import Foundation
import HeraldModel

/// Devices and their tokens, and what became of dead ones.
public protocol DeviceStore: Sendable {
    /// Registers or updates a device. A token registered under another device id of the app
    /// moves here (that device is removed); the push-id list is replaced. With `identity` (a
    /// client token's), in the same transaction: a device already registered under this id,
    /// or holding this token, must be the identity's (`ClientIdentity.owns`), else nothing
    /// changes and a 403 `CommandError` is thrown.
    func register(app: String, _ registration: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord
    func device(app: String, deviceId: String) async throws -> DeviceRecord?
    /// Removes a device; with `userId`, only if the device belongs to that user; with `token`,
    /// only if the device holds that push token (compared in constant time).
    func unregister(app: String, deviceId: String, userId: String?, token: String?) async throws -> Unregistration
    /// Removes the device holding a dead token, unless it was registered again after the
    /// failed send, and keeps an audit row either way. A webhook revocation names the
    /// registration by its id instead: a device of an app in webhook mode, or a sponsee
    /// (`sponsee:<id>`), whose com method is removed.
    func revoke(_ revocation: TokenRevoked, now: Date) async throws -> RevocationResult
    /// Revocation audit rows for a token (newest first).
    func revocations(app: String, token: String) async throws -> [RevocationRecord]
    /// A page of the app's devices, most recently registered first, each with its latest
    /// outcome.
    func devices(app: String, _ query: DeviceQuery) async throws -> DevicePage
}

extension DeviceStore {
    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration) async throws -> DeviceRecord {
        try await register(app: app, registration, actingFor: nil, now: Date())
    }

    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration, now: Date) async throws -> DeviceRecord {
        try await register(app: app, registration, actingFor: nil, now: now)
    }

    /// Throws 403 unless every device of `rows` (one row per device and push id: what a
    /// registration would replace or move its token off) is `identity`'s: a client token
    /// takes over no other user's device or token.
    /// Refuses (403) a client token's registration that would take over another user's device
    /// by its id alone. A row holding the push token registered (`token`) is the caller's to
    /// take: possession of the token proves the phone is in the caller's hands, and "last write
    /// wins" (user B signing in on the phone user A used moves the device to B).
    static func refuseTakeover(of rows: [(deviceId: String, userId: String?, pushId: String?, token: String)], registering token: String, by identity: ClientIdentity) throws {
        var held: [String: DeviceRegistration] = [:]
        for row in rows where !Self.sameToken(row.token, token) {
            var device = held[row.deviceId] ?? DeviceRegistration(deviceId: row.deviceId, platform: .fcm, token: "", os: .other, userId: row.userId)
            if let pushId = row.pushId { device.pushIds.append(pushId) }
            held[row.deviceId] = device
        }
        guard held.values.allSatisfy(identity.owns) else {
            throw CommandError(
                code: "forbidden", detail: "this device id or push token is registered to another user: a client token acts only for its own user (sub)",
                status: 403)
        }
    }

    public func revoke(_ revocation: TokenRevoked) async throws -> RevocationResult { try await revoke(revocation, now: Date()) }

    /// Removes a device; with `userId`, only if the device belongs to that user.
    public func unregister(app: String, deviceId: String, userId: String?) async throws -> Unregistration {
        try await unregister(app: app, deviceId: deviceId, userId: userId, token: nil)
    }

    /// Whether two push tokens are the same, in time that depends on their lengths only.
    static func sameToken(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// What `unregister` answers for a device that is not removed because of `userId` or `token`,
    /// or nil when it may be removed.
    static func keep(deviceId: String, owner: String?, held: String, userId: String?, token: String?) -> Unregistration? {
        if let token, !sameToken(held, token) {
            return Unregistration(result: .noDevice, detail: "no device \(deviceId) with this push token")
        }
        if let userId, owner != userId {
            return Unregistration(
                result: .anotherUsers,
                detail: "device \(deviceId) belongs to \(owner == nil ? "no user" : "another user"), not \(userId): nothing changed")
        }
        return nil
    }
}
