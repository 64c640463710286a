import HeraldDomain
import ServiceKit

/// Every route of the public API. `route` is the one table that says, for each endpoint,
/// its method, its path (Hummingbird's `:name` parameters, under `/v1/apps/:app`), the scope
/// an API key needs, what a device's client token may do there, and the handler that answers
/// it (a method of the controller of its concern: `EventsController`, `DevicesController`,
/// `PreferencesController`). The switch has no `default`, so a new endpoint cannot be added
/// without stating all five. The router and the OpenAPI test both read this table.
public enum Endpoint: String, CaseIterable, Sendable {
    case postEvent, smartIDPush, smartIDDevices, evernymNotify, evernymSponsee, upstraEvents
    case emailMessages, emailAddressKey, webcomEvents, getEvent, listEvents, getStats
    case listDevices, listUserDevices, putDevice, getDevice, deleteDevice, unregisterDevice, getConfiguration, putConfiguration
    case getUserPreferences, putUserPreferences, getChannelPreferences, putChannelPreferences
    case getSettings, putSettings
    case listIngestURLs, createIngestURL, rotateIngestURL, revokeIngestURL, revokeIngestSecret
    /// A provider's document for the app's clients (`ProviderResource`): served at each
    /// resource's own path, `/<platform>/<name>`, which the router makes from the registry.
    case getProviderResource

    public enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", delete = "DELETE"
    }

    /// One row of the table.
    public struct Route: Sendable {
        public let method: Method
        /// Below `/v1/apps/:app`.
        public let path: String
        public let scope: AppConfiguration.Scope
        public let client: ClientAccess
        let handler: @Sendable (Gateway, Gateway.Call) async throws -> Gateway.Reply

        init(
            _ method: Method, _ path: String, _ scope: AppConfiguration.Scope, _ client: ClientAccess,
            _ handler: @escaping @Sendable (Gateway, Gateway.Call) async throws -> Gateway.Reply
        ) {
            self.method = method
            self.path = path
            self.scope = scope
            self.client = client
            self.handler = handler
        }
    }

    public var route: Route {
        switch self {
        case .postEvent: Route(.post, "/events", .events, .refused) { try await EventsController(gateway: $0).postEvent($1) }
        case .smartIDPush: Route(.post, "/smartid/push", .events, .refused) { try await EventsController(gateway: $0).smartIDPush($1) }
        case .evernymNotify: Route(.post, "/evernym/notify", .events, .refused) { try await EventsController(gateway: $0).evernymNotify($1) }
        case .upstraEvents: Route(.post, "/upstra/events", .events, .refused) { try await EventsController(gateway: $0).upstraEvents($1) }
        case .emailMessages: Route(.post, "/email/messages", .events, .refused) { try await EventsController(gateway: $0).emailMessages($1) }
        case .webcomEvents: Route(.post, "/webcom/events", .events, .refused) { try await EventsController(gateway: $0).webcomEvents($1) }
        case .getEvent: Route(.get, "/events/:eventId", .events, .refused) { try await EventsController(gateway: $0).getEvent($1) }
        case .listEvents: Route(.get, "/events", .events, .refused) { try await EventsController(gateway: $0).listEvents($1) }
        case .getStats: Route(.get, "/stats", .events, .refused) { try await EventsController(gateway: $0).getStats($1) }
        case .listDevices: Route(.get, "/devices", .devices, .refused) { try await DevicesController(gateway: $0).listDevices($1) }
        case .listUserDevices: Route(.get, "/users/:userId/devices", .devices, .ownUser) { try await DevicesController(gateway: $0).listUserDevices($1) }
        case .smartIDDevices: Route(.post, "/smartid/devices", .devices, .ownDevices) { try await DevicesController(gateway: $0).smartIDDevices($1) }
        case .evernymSponsee: Route(.put, "/evernym/sponsees/:id", .devices, .refused) { try await DevicesController(gateway: $0).evernymSponsee($1) }
        case .emailAddressKey: Route(.put, "/email/addresses/:id/key", .devices, .ownDevices) { try await DevicesController(gateway: $0).emailAddressKey($1) }
        case .putDevice: Route(.put, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).putDevice($1) }
        case .getDevice: Route(.get, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).getDevice($1) }
        case .deleteDevice: Route(.delete, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).deleteDevice($1) }
        case .unregisterDevice: Route(.post, "/devices/:deviceId/unregister", .devices, .refused) { try await DevicesController(gateway: $0).unregisterDevice($1) }
        case .getConfiguration: Route(.get, "/devices/:deviceId/configuration", .devices, .ownDevices) { try await PreferencesController(gateway: $0).getConfiguration($1) }
        case .putConfiguration: Route(.put, "/devices/:deviceId/configuration", .devices, .ownDevices) { try await PreferencesController(gateway: $0).putConfiguration($1) }
        case .getUserPreferences: Route(.get, "/users/:userId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).getUserPreferences($1) }
        case .putUserPreferences: Route(.put, "/users/:userId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).putUserPreferences($1) }
        case .getChannelPreferences: Route(.get, "/users/:userId/channels/:channelId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).getChannelPreferences($1) }
        case .putChannelPreferences: Route(.put, "/users/:userId/channels/:channelId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).putChannelPreferences($1) }
        case .getSettings: Route(.get, "/settings/notifications", .admin, .refused) { try await PreferencesController(gateway: $0).getSettings($1) }
        case .putSettings: Route(.put, "/settings/notifications", .admin, .refused) { try await PreferencesController(gateway: $0).putSettings($1) }
        case .listIngestURLs: Route(.get, "/ingest-urls", .admin, .refused) { try await IngestController(gateway: $0).list($1) }
        case .createIngestURL: Route(.post, "/ingest-urls", .admin, .refused) { try await IngestController(gateway: $0).create($1) }
        case .rotateIngestURL: Route(.post, "/ingest-urls/:id/secrets", .admin, .refused) { try await IngestController(gateway: $0).rotate($1) }
        case .revokeIngestURL: Route(.delete, "/ingest-urls/:id", .admin, .refused) { try await IngestController(gateway: $0).revoke($1) }
        case .revokeIngestSecret: Route(.delete, "/ingest-urls/:id/secrets/:fingerprint", .admin, .refused) { try await IngestController(gateway: $0).revoke($1) }
        case .getProviderResource: Route(.get, "/:platform/:resource", .devices, .ownDevices) { try await ProvidersController(gateway: $0).getResource($1) }
        }
    }

    public var method: String { route.method.rawValue }
    public var path: String { "/v1/apps/:app" + route.path }
    public var scope: AppConfiguration.Scope { route.scope }
    public var client: ClientAccess { route.client }

    /// Whether the endpoint publishes an event (and answers 202).
    public var publishes: Bool { route.scope == .events && route.method == .post }

    /// Whether the request proves itself by a device's push token in its body instead of a
    /// credential: a signed-out app removing its own device (`unregisterDevice`) holds no
    /// client token, only the token its provider gave the device. An `Authorization` header
    /// is not read there.
    public var provenByPushToken: Bool { self == .unregisterDevice }

    /// The source whose ingest URLs take this endpoint (`smartid`, `evernym`, …, `events`: the
    /// first segment of its path), for an endpoint that publishes; nil for any other.
    public var ingestSource: String? {
        publishes ? String(route.path.dropFirst().prefix { $0 != "/" }) : nil
    }

    /// The endpoint an ingest URL of `source` takes.
    public static func ingesting(_ source: String) -> Endpoint? {
        allCases.first { $0.ingestSource == source }
    }
}
