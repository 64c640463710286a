import HeraldModel

/// What a batch of events needs from the registry, per app: the users (whose devices and
/// sponsee com methods count), push ids, device ids and email addresses their audiences name.
/// A store answers it with one `AudienceDirectory`, in as few queries as it can.
public struct AudienceLookup: Sendable, Hashable {
    public var users: [String: Set<String>] = [:]
    public var pushIds: [String: Set<String>] = [:]
    public var deviceIds: [String: Set<String>] = [:]
    public var addresses: [String: Set<String>] = [:]

    public init() {}

    public var isEmpty: Bool { users.isEmpty && pushIds.isEmpty && deviceIds.isEmpty && addresses.isEmpty }
}

/// The registry's answers to an `AudienceLookup`: devices by user, push id and id, sponsees,
/// and address keys with their owners (whose devices are included under `devices(app:user:)`).
public struct AudienceDirectory: Sendable {
    struct Key: Hashable, Sendable {
        var app: String
        var id: String
    }

    var devicesByUser: [Key: [DeviceTarget]] = [:]
    var devicesById: [Key: DeviceTarget] = [:]
    var deviceIdsByPushId: [Key: [String]] = [:]
    var sponsees: [Key: Sponsee] = [:]
    var addressKeys: [Key: RegisteredAddressKey] = [:]

    public init() {}

    /// The devices of `user`, by device id.
    public func devices(app: String, user: String) -> [DeviceTarget] {
        (devicesByUser[Key(app: app, id: user)] ?? []).sorted { $0.id < $1.id }
    }

    public func device(app: String, id: String) -> DeviceTarget? { devicesById[Key(app: app, id: id)] }

    /// The devices listening to `pushId`, by device id.
    public func devices(app: String, pushId: String) -> [DeviceTarget] {
        Set(deviceIdsByPushId[Key(app: app, id: pushId)] ?? []).sorted().compactMap { device(app: app, id: $0) }
    }

    public func sponsee(app: String, id: String) -> Sponsee? { sponsees[Key(app: app, id: id)] }

    public func addressKey(app: String, emailAddressId: String) -> RegisteredAddressKey? { addressKeys[Key(app: app, id: emailAddressId)] }

    /// Files `targets` under their users and ids (each device once, however it was found).
    mutating func add(_ targets: [DeviceTarget], app: String) {
        for target in targets {
            let key = Key(app: app, id: target.id)
            let isNew = devicesById[key] == nil
            devicesById[key] = target
            if isNew, let user = target.userId { devicesByUser[Key(app: app, id: user), default: []].append(target) }
        }
    }

    mutating func add(pushId: String, deviceId: String, app: String) {
        deviceIdsByPushId[Key(app: app, id: pushId), default: []].append(deviceId)
    }

    mutating func add(_ sponsee: Sponsee, app: String) { sponsees[Key(app: app, id: sponsee.sponseeId)] = sponsee }

    mutating func add(_ key: RegisteredAddressKey, app: String) { addressKeys[Key(app: app, id: key.key.emailAddressId)] = key }
}

/// An email address's key and the user who owns the address.
public struct RegisteredAddressKey: Sendable, Hashable {
    public var key: AddressKey
    public var owner: String?
}
