import Foundation
import HeraldModel

/// What an event's audience resolves to: users' and push ids' devices, sponsees, and the
/// keys of email addresses.
public protocol AudienceStore: Sendable {
    /// Everything a batch of events' audiences need, in as few queries as the store can.
    func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory
}

extension AudienceStore {
    /// The delivery targets of the users' devices.
    public func targets(app: String, users: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.users[app] = Set(users)
        let directory = try await lookUp(lookup)
        return users.flatMap { directory.devices(app: app, user: $0) }
    }

    /// The delivery targets of the devices with these ids.
    public func targets(app: String, ids: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.deviceIds[app] = Set(ids)
        let directory = try await lookUp(lookup)
        return ids.compactMap { directory.device(app: app, id: $0) }
    }

    /// The delivery targets of the devices listening to any of `pushIds`.
    public func targets(app: String, pushIds: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.pushIds[app] = Set(pushIds)
        let directory = try await lookUp(lookup)
        var seen = Set<String>()
        return pushIds.flatMap { directory.devices(app: app, pushId: $0) }.filter { seen.insert($0.id).inserted }
    }

    public func sponsees(app: String, ids: [String]) async throws -> [Sponsee] {
        var lookup = AudienceLookup()
        lookup.users[app] = Set(ids)
        let directory = try await lookUp(lookup)
        return ids.compactMap { directory.sponsee(app: app, id: $0) }
    }

    /// The key of an address and the user who owns it.
    public func addressKey(app: String, emailAddressId: String) async throws -> RegisteredAddressKey? {
        var lookup = AudienceLookup()
        lookup.addresses[app] = [emailAddressId]
        return try await lookUp(lookup).addressKey(app: app, emailAddressId: emailAddressId)
    }
}
