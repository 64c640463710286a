import HeraldDomain
import ServiceKit

/// One route of the public API: its name (the OpenAPI `operationId`, the metrics' `endpoint`),
/// and its `Route`: method, path (Hummingbird's `:name` parameters, under `/v1/apps/:app`), the
/// scope an API key needs, what a device's client token may do there, and the handler that
/// answers it (a method of the controller of its concern). Herald's own endpoints are the
/// constants here; each source's routes (`SourceRoute`, `SourceStateRoute`) are endpoints too
/// (`all(_:)`). The
/// router and the OpenAPI test both read that list.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The OpenAPI `operationId`.
    public let rawValue: String
    public let route: Route
    /// The source route it serves, for a source's endpoint.
    public let source: SourceRoute?

    init(_ name: String, _ route: Route, source: SourceRoute? = nil) {
        rawValue = name
        self.route = route
        self.source = source
    }

    /// A source's route: `POST` with the events scope, its body made an event by its adapter.
    public init(source route: SourceRoute) {
        self.init(route.operation, Route(.post, route.path, .events, .refused) { try await EventsController(gateway: $0).ingest(route, $1) }, source: route)
    }

    public static func == (a: Endpoint, b: Endpoint) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

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


    public static let getEvent = Endpoint("getEvent", Route(.get, "/events/:eventId", .events, .refused) { try await EventsController(gateway: $0).getEvent($1) })
    public static let listEvents = Endpoint("listEvents", Route(.get, "/events", .events, .refused) { try await EventsController(gateway: $0).listEvents($1) })
    public static let getStats = Endpoint("getStats", Route(.get, "/stats", .events, .refused) { try await EventsController(gateway: $0).getStats($1) })
    public static let listDevices = Endpoint("listDevices", Route(.get, "/devices", .devices, .refused) { try await DevicesController(gateway: $0).listDevices($1) })
    public static let listUserDevices = Endpoint("listUserDevices", Route(.get, "/users/:userId/devices", .devices, .ownUser) { try await DevicesController(gateway: $0).listUserDevices($1) })
    public static let putDevice = Endpoint("putDevice", Route(.put, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).putDevice($1) })
    public static let getDevice = Endpoint("getDevice", Route(.get, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).getDevice($1) })
    public static let deleteDevice = Endpoint("deleteDevice", Route(.delete, "/devices/:deviceId", .devices, .ownDevices) { try await DevicesController(gateway: $0).deleteDevice($1) })
    public static let unregisterDevice = Endpoint("unregisterDevice", Route(.post, "/devices/:deviceId/unregister", .devices, .refused) { try await DevicesController(gateway: $0).unregisterDevice($1) })
    public static let getConfiguration = Endpoint("getConfiguration", Route(.get, "/devices/:deviceId/configuration", .devices, .ownDevices) { try await PreferencesController(gateway: $0).getConfiguration($1) })
    public static let putConfiguration = Endpoint("putConfiguration", Route(.put, "/devices/:deviceId/configuration", .devices, .ownDevices) { try await PreferencesController(gateway: $0).putConfiguration($1) })
    public static let getUserPreferences = Endpoint("getUserPreferences", Route(.get, "/users/:userId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).getUserPreferences($1) })
    public static let putUserPreferences = Endpoint("putUserPreferences", Route(.put, "/users/:userId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).putUserPreferences($1) })
    public static let getChannelPreferences = Endpoint("getChannelPreferences", Route(.get, "/users/:userId/channels/:channelId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).getChannelPreferences($1) })
    public static let putChannelPreferences = Endpoint("putChannelPreferences", Route(.put, "/users/:userId/channels/:channelId/preferences", .devices, .ownUser) { try await PreferencesController(gateway: $0).putChannelPreferences($1) })
    public static let getSettings = Endpoint("getSettings", Route(.get, "/settings/notifications", .admin, .refused) { try await PreferencesController(gateway: $0).getSettings($1) })
    public static let putSettings = Endpoint("putSettings", Route(.put, "/settings/notifications", .admin, .refused) { try await PreferencesController(gateway: $0).putSettings($1) })
    public static let listIngestURLs = Endpoint("listIngestURLs", Route(.get, "/ingest-urls", .admin, .refused) { try await IngestController(gateway: $0).list($1) })
    public static let createIngestURL = Endpoint("createIngestURL", Route(.post, "/ingest-urls", .admin, .refused) { try await IngestController(gateway: $0).create($1) })
    public static let rotateIngestURL = Endpoint("rotateIngestURL", Route(.post, "/ingest-urls/:id/secrets", .admin, .refused) { try await IngestController(gateway: $0).rotate($1) })
    public static let revokeIngestURL = Endpoint("revokeIngestURL", Route(.delete, "/ingest-urls/:id", .admin, .refused) { try await IngestController(gateway: $0).revoke($1) })
    public static let revokeIngestSecret = Endpoint("revokeIngestSecret", Route(.delete, "/ingest-urls/:id/secrets/:fingerprint", .admin, .refused) { try await IngestController(gateway: $0).revoke($1) })
    public static let getProviderResource = Endpoint("getProviderResource", Route(.get, "/:platform/:resource", .devices, .ownDevices) { try await ProvidersController(gateway: $0).getResource($1) })

    /// Herald's own endpoints, besides the sources'.
    public static let own: [Endpoint] = [
        .getEvent, .listEvents, .getStats, .listDevices, .listUserDevices, .putDevice, .getDevice, .deleteDevice, .unregisterDevice, .getConfiguration, .putConfiguration, .getUserPreferences, .putUserPreferences, .getChannelPreferences, .putChannelPreferences, .getSettings, .putSettings, .listIngestURLs, .createIngestURL, .rotateIngestURL, .revokeIngestURL, .revokeIngestSecret, .getProviderResource,
    ]

    /// A source's state route: the devices scope, a client token where the route takes
    /// them, its body made a change by the source and kept by Registration.
    public init(state route: SourceStateRoute) {
        self.init(route.operation, Route(Method(rawValue: route.method.rawValue)!, route.path, .devices, route.takesClientTokens ? .ownDevices : .refused) {
            try await DevicesController(gateway: $0).sourceState(route, $1)
        })
    }

    /// Every endpoint of a gateway serving `sources`: each source's routes (of events, then
    /// of state), then Herald's own.
    public static func all(_ sources: SourceRegistry) -> [Endpoint] {
        sources.routes.map(Endpoint.init(source:)) + sources.stateRoutes.map(Endpoint.init(state:)) + own
    }

    public var method: String { route.method.rawValue }
    public var path: String { "/v1/apps/:app" + route.path }
    public var scope: AppConfiguration.Scope { route.scope }
    public var client: ClientAccess { route.client }

    /// Whether the endpoint publishes an event (and answers 202): a source's.
    public var publishes: Bool { source != nil }

    /// Whether the request proves itself by a device's push token in its body instead of a
    /// credential: a signed-out app removing its own device (`unregisterDevice`) holds no
    /// client token, only the token its provider gave the device. An `Authorization` header
    /// is not read there.
    public var provenByPushToken: Bool { self == .unregisterDevice }

    /// The source whose ingest URLs take this endpoint (`smartid`, `evernym`, …, `events`: the
    /// first segment of its path), for a source's endpoint; nil for any other.
    public var ingestSource: String? { source?.ingestSource }
}
