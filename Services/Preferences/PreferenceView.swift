import HeraldModel

/// Every preference in memory, as plain dictionaries and sets: the filter's hot path reads
/// this and does no SQL. `PreferenceStore` keeps it equal to the database by applying each
/// committed write to it.
public struct PreferenceView: Sendable {
    struct UserKey: Hashable, Sendable {
        var app: String
        var userId: String
    }

    struct ChannelKey: Hashable, Sendable {
        var app: String
        var userId: String
        var channelId: String
    }

    struct DeviceKey: Hashable, Sendable {
        var app: String
        var deviceId: String
    }

    struct UserState: Sendable {
        var enabled: Bool
        var mutedKinds: Set<String>
    }

    var disabledApps: Set<String> = []
    var users: [UserKey: UserState] = [:]
    var disabledChannels: Set<ChannelKey> = []
    var devices: [DeviceKey: NotificationConfiguration] = [:]

    public init() {}

    /// Decides one delivery. `critical` deliveries skip the user, channel and kind levels,
    /// never the network switch. A service in `optIn` (the app's `optInServices`) reaches a
    /// device only when the device's configuration enables it; any other, unless it disables it.
    public func decide(_ delivery: Delivery, critical: Bool, optIn: Set<String> = []) -> FilterDecision {
        if disabledApps.contains(delivery.app) { return .filter(.network) }
        if !critical, let userId = delivery.device.userId {
            let user = users[UserKey(app: delivery.app, userId: userId)]
            if let user, !user.enabled { return .filter(.user) }
            if let channelId = delivery.context["channelId"],
               disabledChannels.contains(ChannelKey(app: delivery.app, userId: userId, channelId: channelId)) {
                return .filter(.channel)
            }
            if let user, user.mutedKinds.contains(delivery.kind) { return .filter(.kind) }
        }
        let service = Self.service(of: delivery)
        let configuration = devices[DeviceKey(app: delivery.app, deviceId: delivery.device.id)]
        if configuration != nil || optIn.contains(service),
           !(configuration ?? NotificationConfiguration()).isEnabled(service: service, context: delivery.context, byDefault: !optIn.contains(service)) {
            return .filter(.device)
        }
        return .allow
    }

    /// The service a delivery belongs to for device rules: its `context.service`, else its source.
    public static func service(of delivery: Delivery) -> String {
        delivery.context["service"] ?? delivery.source.rawValue
    }

    // MARK: Reading and changing (the store calls these)

    func network(app: String) -> Bool { !disabledApps.contains(app) }

    func user(app: String, userId: String) -> UserPreferences {
        guard let state = users[UserKey(app: app, userId: userId)] else { return UserPreferences() }
        return UserPreferences(enabled: state.enabled, mutedKinds: state.mutedKinds.sorted())
    }

    func channel(app: String, userId: String, channelId: String) -> Bool {
        !disabledChannels.contains(ChannelKey(app: app, userId: userId, channelId: channelId))
    }

    func configuration(app: String, deviceId: String) -> NotificationConfiguration {
        devices[DeviceKey(app: app, deviceId: deviceId)] ?? NotificationConfiguration()
    }

    mutating func setNetwork(app: String, enabled: Bool) {
        if enabled { disabledApps.remove(app) } else { disabledApps.insert(app) }
    }

    mutating func setUser(app: String, userId: String, _ preferences: UserPreferences) {
        users[UserKey(app: app, userId: userId)] = UserState(enabled: preferences.enabled, mutedKinds: Set(preferences.mutedKinds))
    }

    mutating func setChannel(app: String, userId: String, channelId: String, enabled: Bool) {
        let key = ChannelKey(app: app, userId: userId, channelId: channelId)
        if enabled { disabledChannels.remove(key) } else { disabledChannels.insert(key) }
    }

    mutating func setConfiguration(app: String, deviceId: String, _ configuration: NotificationConfiguration) {
        devices[DeviceKey(app: app, deviceId: deviceId)] = configuration.entries.isEmpty ? nil : configuration
    }
}
