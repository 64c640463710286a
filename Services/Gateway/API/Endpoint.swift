import ServiceKit

/// Every route of the public API: method, path (Hummingbird's `:name` parameters) and the
/// scope a key needs. The router and the OpenAPI test both read this table.
public enum Endpoint: String, CaseIterable, Sendable {
    case postEvent, smartIDPush, smartIDDevices, evernymNotify, evernymSponsee, upstraEvents
    case emailMessages, emailAddressKey, webcomEvents, getEvent
    case putDevice, getDevice, deleteDevice, getConfiguration, putConfiguration
    case getUserPreferences, putUserPreferences, getChannelPreferences, putChannelPreferences
    case getSettings, putSettings

    public var method: String {
        switch self {
        case .getEvent, .getDevice, .getConfiguration, .getUserPreferences, .getChannelPreferences, .getSettings: "GET"
        case .deleteDevice: "DELETE"
        case .evernymSponsee, .emailAddressKey, .putDevice, .putConfiguration, .putUserPreferences, .putChannelPreferences, .putSettings: "PUT"
        default: "POST"
        }
    }

    public var path: String {
        let base = "/v1/apps/:app"
        switch self {
        case .postEvent: return base + "/events"
        case .getEvent: return base + "/events/:eventId"
        case .smartIDPush: return base + "/smartid/push"
        case .smartIDDevices: return base + "/smartid/devices"
        case .evernymNotify: return base + "/evernym/notify"
        case .evernymSponsee: return base + "/evernym/sponsees/:id"
        case .upstraEvents: return base + "/upstra/events"
        case .emailMessages: return base + "/email/messages"
        case .emailAddressKey: return base + "/email/addresses/:id/key"
        case .webcomEvents: return base + "/webcom/events"
        case .putDevice, .getDevice, .deleteDevice: return base + "/devices/:deviceId"
        case .getConfiguration, .putConfiguration: return base + "/devices/:deviceId/configuration"
        case .getUserPreferences, .putUserPreferences: return base + "/users/:userId/preferences"
        case .getChannelPreferences, .putChannelPreferences: return base + "/users/:userId/channels/:channelId/preferences"
        case .getSettings, .putSettings: return base + "/settings/notifications"
        }
    }

    public var scope: AppConfiguration.Scope {
        switch self {
        case .postEvent, .smartIDPush, .evernymNotify, .upstraEvents, .emailMessages, .webcomEvents, .getEvent: .events
        case .getSettings, .putSettings: .admin
        default: .devices
        }
    }

    /// Whether the endpoint publishes an event (and answers 202).
    public var publishes: Bool {
        switch self {
        case .postEvent, .smartIDPush, .evernymNotify, .upstraEvents, .emailMessages, .webcomEvents: true
        default: false
        }
    }
}
