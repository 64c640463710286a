import HeraldModel

/// What a batch of events needs from the store, per app: the users (whose devices and
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

/// The store's answers to an `AudienceLookup`: devices by user, push id and id, sponsees,
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

    /// Files an address's key (`deviceId` nil) or one of its devices' keys, and its owner.
    mutating func add(_ key: AddressKey, owner: String?, deviceId: String?, app: String) {
        let id = Key(app: app, id: key.emailAddressId)
        var registered = addressKeys[id] ?? RegisteredAddressKey(emailAddressId: key.emailAddressId)
        if let deviceId { registered.deviceKeys[deviceId] = key } else { registered.key = key }
        // The address's own row names the owner first; a device's row when it has none.
        if deviceId == nil || registered.owner == nil { registered.owner = owner ?? registered.owner }
        addressKeys[id] = registered
    }
}

/// An email address's keys and the user who owns the address: each device of the owner may
/// have registered its own key (it alone holds the private key), and the address may have one
/// for the devices that did not.
public struct RegisteredAddressKey: Sendable, Hashable {
    public var emailAddressId: String
    /// The address's key, for the owner's devices without their own.
    public var key: AddressKey?
    public var owner: String?
    /// The devices' own keys, by device id.
    public var deviceKeys: [String: AddressKey] = [:]

    public init(emailAddressId: String, key: AddressKey? = nil, owner: String? = nil, deviceKeys: [String: AddressKey] = [:]) {
        self.emailAddressId = emailAddressId
        self.key = key
        self.owner = owner
        self.deviceKeys = deviceKeys
    }

    /// The key to encrypt to for `deviceId`: its own, else the address's.
    public func key(forDevice deviceId: String) -> AddressKey? { deviceKeys[deviceId] ?? key }
}
