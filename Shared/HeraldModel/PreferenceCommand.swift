/// The commands the gateway sends to Preferences over AMQP RPC (queue
/// `preferences.commands`, type `herald.preference-command.v1`). Each is answered with the
/// resulting state (`PreferenceReply`) or a `CommandError`.
///
/// Encoded with the command as the single key: `{"setUser": {"app": "chat", "userId": "u1",
/// "preferences": {"enabled": false}}}`.
public enum PreferenceCommand: Codable, Sendable, Hashable {
    public static let contractName = "herald.preference-command.v1"

    /// Network level: the app's notifications on or off (admin).
    case getNetwork(app: String)
    case setNetwork(app: String, enabled: Bool)
    /// User level: all of the user's devices, and muted kinds.
    case getUser(app: String, userId: String)
    case setUser(app: String, userId: String, preferences: UserPreferences)
    /// Channel level: one channel of one user.
    case getChannel(app: String, userId: String, channelId: String)
    case setChannel(app: String, userId: String, channelId: String, enabled: Bool)
    /// Device level: the whole configuration.
    case getDeviceConfiguration(app: String, deviceId: String)
    /// With `ifMatch` (an `If-Match` header), only if the stored configuration matches it.
    case setDeviceConfiguration(app: String, deviceId: String, configuration: NotificationConfiguration, ifMatch: String? = nil)
    /// The Sudo SDK's operations on a device's configuration.
    case initializeService(app: String, deviceId: String, service: String)
    case setRule(app: String, deviceId: String, service: String, rule: NotificationConfiguration.Rule, enabled: Bool)
    case isEnabled(app: String, deviceId: String, service: String, rule: NotificationConfiguration.Rule)

    /// The app the command is about (the gateway checks the caller's key against it).
    public var app: String {
        switch self {
        case .getNetwork(let app), .setNetwork(let app, _), .getUser(let app, _), .setUser(let app, _, _),
             .getChannel(let app, _, _), .setChannel(let app, _, _, _), .getDeviceConfiguration(let app, _),
             .setDeviceConfiguration(let app, _, _, _), .initializeService(let app, _, _), .setRule(let app, _, _, _, _),
             .isEnabled(let app, _, _, _):
            return app
        }
    }
}

/// What Preferences answers: the state after the command (type `herald.preference-reply.v1`).
/// Only the part the command is about is present.
public struct PreferenceReply: Codable, Sendable, Hashable {
    public static let contractName = "herald.preference-reply.v1"

    public var networkEnabled: Bool?
    public var user: UserPreferences?
    public var channelEnabled: Bool?
    public var configuration: NotificationConfiguration?
    /// The answer to `isEnabled`.
    public var enabled: Bool?

    public init(
        networkEnabled: Bool? = nil, user: UserPreferences? = nil, channelEnabled: Bool? = nil,
        configuration: NotificationConfiguration? = nil, enabled: Bool? = nil
    ) {
        self.networkEnabled = networkEnabled
        self.user = user
        self.channelEnabled = channelEnabled
        self.configuration = configuration
        self.enabled = enabled
    }
}
