import HeraldModel

/// One stored preference: which setting (`key`) and its value. The unit the stores write,
/// the view applies, and replicas tell each other about.
public struct PreferenceEntry: Sendable, Hashable {
    public enum Key: Sendable, Hashable, Codable {
        case network(app: String)
        case user(app: String, userId: String)
        case channel(app: String, userId: String, channelId: String)
        case device(app: String, deviceId: String)
    }

    public enum Value: Sendable, Hashable {
        case network(enabled: Bool)
        case user(UserPreferences)
        case channel(enabled: Bool)
        case device(NotificationConfiguration)
    }

    public var key: Key
    public var value: Value

    public init(_ key: Key, _ value: Value) {
        self.key = key
        self.value = value
    }

    /// Sets this entry in `view`.
    func apply(to view: inout PreferenceView) {
        switch (key, value) {
        case (.network(let app), .network(let enabled)):
            view.setNetwork(app: app, enabled: enabled)
        case (.user(let app, let userId), .user(let preferences)):
            view.setUser(app: app, userId: userId, preferences)
        case (.channel(let app, let userId, let channelId), .channel(let enabled)):
            view.setChannel(app: app, userId: userId, channelId: channelId, enabled: enabled)
        case (.device(let app, let deviceId), .device(let configuration)):
            view.setConfiguration(app: app, deviceId: deviceId, configuration)
        default:
            break
        }
    }
}

/// An entry as stored, with the version the store gave its last write: the view keeps, per
/// key, the highest version it applied, so writes and reloads arriving out of order never
/// set an older value over a newer one.
public struct VersionedEntry: Sendable, Hashable {
    public var entry: PreferenceEntry
    public var version: Int64

    public init(_ entry: PreferenceEntry, version: Int64) {
        self.entry = entry
        self.version = version
    }
}
