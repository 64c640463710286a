import Foundation
import HTTPTransport
import HeraldDomain
import HeraldModel
import Logging
import Messaging
import Metrics
import ServiceKit
import Synchronization

/// The public API's logic, apart from HTTP: authorizes, validates, maps each integration's
/// request to an event published with confirms (202 only once the broker confirmed it), and
/// forwards device, preference and settings requests to Registration and Preferences as RPC.
public struct Gateway: Sendable {
    public struct Configuration: Sendable {
        /// Larger bodies get 413.
        public var bodyLimit: Int = 64 * 1024
        /// The limits a source's route sets above `bodyLimit` (`SourceRoute.BodyLimit`), by
        /// the variable that sets each, where the environment set it: a Webcom value over the
        /// providers' 4 KiB reaches its devices degraded rather than refused, and an Upstra
        /// message to a channel lists every member to notify.
        public var sourceBodyLimits: [String: Int] = [:]
        public var publishTimeout: Duration = .seconds(5)
        public var commandTimeout: Duration = .seconds(5)
        /// How many packs of events await the broker's confirm at once; the events of the
        /// requests that arrive meanwhile leave together as the next pack.
        public var packsInFlight = 1
        /// Where commands go; Herald's command queues unless a test gives others.
        public var registrationQueue = HeraldTopology.CommandQueue.registration.name
        public var preferencesQueue = HeraldTopology.CommandQueue.preferences.name
        public init() {}

        /// The defaults, with each of `sources`' body-limit variables
        /// (`HERALD_GATEWAY_WEBCOM_BODY_LIMIT`, …: bytes) read from `environment`.
        public init(environment: [String: String], sources: SourceRegistry) throws {
            self.init()
            let reader = EnvironmentReader(environment)
            for limit in sources.routes.compactMap(\.bodyLimit) {
                let value = try reader.parse(limit.variable, expected: "a number of bytes from 65536 to 67108864") {
                    Int($0).flatMap { (64 * 1024...64 * 1024 * 1024).contains($0) ? $0 : nil }
                }
                if let value { sourceBodyLimits[limit.variable] = value }
            }
        }

        /// The largest body `endpoint` takes: its source route's limit (as the environment set
        /// it) when that is above the default.
        public func bodyLimit(_ endpoint: Endpoint) -> Int {
            guard let limit = endpoint.source?.bodyLimit else { return bodyLimit }
            return max(bodyLimit, sourceBodyLimits[limit.variable] ?? limit.bytes)
        }
    }

    /// One request as the gateway sees it.
    public struct Request: Sendable {
        public var endpoint: Endpoint
        public var parameters: [String: String]
        public var query: [String: String]
        public var authorization: String?
        /// The `Idempotency-Key` header: the event id of a body that carries none.
        public var idempotencyKey: String?
        /// The `If-Match` header: a write only if the resource still has one of these tags.
        public var ifMatch: String?
        public var body: Data
        /// Sent by the Herald Console on an operator's behalf: the key needs the `console`
        /// scope (or `admin`) instead of the endpoint's own.
        public var viaConsole: Bool
        /// The secret of the ingest URL the request came to (`/v1/ingest/{secret}/…`), which is
        /// its credential and names its app; never logged or shown.
        public var ingestSecret: String?
        /// The address of the peer it came from, as text (an ingest URL's networks are checked against it).
        public var peer: String?
        public init(
            endpoint: Endpoint, parameters: [String: String], query: [String: String] = [:], authorization: String?,
            idempotencyKey: String? = nil, ifMatch: String? = nil, body: Data, viaConsole: Bool = false, ingestSecret: String? = nil, peer: String? = nil
        ) {
            self.viaConsole = viaConsole
            self.ingestSecret = ingestSecret
            self.peer = peer
            self.ifMatch = ifMatch
            self.endpoint = endpoint
            self.parameters = parameters
            self.query = query
            self.authorization = authorization
            self.idempotencyKey = idempotencyKey
            self.body = body
        }

        /// A path parameter as the caller meant it (the router gives the segment as it came,
        /// percent-encoded); empty when absent.
        func parameter(_ name: String) -> String {
            let raw = parameters[name] ?? ""
            return raw.removingPercentEncoding ?? raw
        }
    }

    /// The answer: status and JSON body (problem+json for errors).
    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var contentType = "application/json"
        public var retryAfter: Int?
        /// The `ETag` header: the version of the resource the body shows.
        public var entityTag: String?
    }

    /// One request on its way through its handler: the request, its app, and the fields and
    /// parameters read the same way for every endpoint. A body is parsed once, here, for
    /// every reader: the fields of a handler, the null check of one that decodes a model.
    public struct Call: Sendable {
        public let request: Request
        public let app: String
        public let now: Date
        public let caller: Caller
        /// The body as JSON fields, or why it is not a JSON object (thrown by `fields()`, so
        /// that a handler's own checks of the path come first); nil for a method without one.
        private let body: Result<JSONFields, GatewayError>?

        init(request: Request, app: String, now: Date, caller: Caller) {
            self.request = request
            self.app = app
            self.now = now
            self.caller = caller
            body = request.endpoint.route.method == .post || request.endpoint.route.method == .put
                ? Result { () throws(GatewayError) in try JSONFields(request.body) } : nil
        }

        /// `command` as this caller may send it: for a client token, wrapped so Registration
        /// runs it only within the token's user and profile ids.
        func acting(_ command: RegistrationCommand) -> RegistrationCommand {
            guard let identity = caller.client else { return command }
            return .actingFor(identity: identity, command: command)
        }

        /// The body's fields (`JSONFields`): 400 when it is not a JSON object.
        func fields() throws(GatewayError) -> JSONFields {
            guard let body else { throw GatewayError(400, "Invalid request", "\(request.endpoint.route.method.rawValue) takes no body") }
            return try body.get()
        }

        func parameter(_ name: String) throws -> String {
            let value = request.parameter(name)
            guard TextLimits.fits(value, maximum: TextLimits.identifier) else {
                throw GatewayError.invalid(name, "must be 1 to \(TextLimits.identifier) characters")
            }
            return value
        }
    }

    /// The services the gateway forwards commands to.
    enum CommandTarget: String, Sendable {
        case registration, preferences
    }

    /// The apps file's apps and credentials, replaced whole when it is read again (`reload`).
    private let current: GatewayApps
    var apps: AppsConfiguration { current.apps }
    var credentials: Credentials { current.credentials }
    /// The providers served: the platforms a device may register with.
    public let providers: ProviderRegistry
    /// The sources served: the routes that take events.
    public let sources: SourceRegistry
    /// Every endpoint: the sources' and Herald's own.
    public let endpoints: [Endpoint]
    public let limiter: RateLimiter
    let publisher: Publisher
    /// Events of concurrent requests travel to the broker together.
    let events: PackingPublisher
    let rpc: RPCClient
    let recent: RecentEvents
    /// Fails publishes whose confirm does not come in time; a `Service` of the executable.
    public let deadlines: Deadlines
    /// The ingest URLs requests may come to instead of carrying a credential.
    public let ingest: IngestSecrets
    let configuration: Configuration
    let logger: Logger
    private let unexpectedErrors = Counter(label: "herald_gateway_unexpected_errors_total")

    public init(
        apps: AppsConfiguration, providers: ProviderRegistry, sources: SourceRegistry, credentials: Credentials, limiter: RateLimiter? = nil, publisher: Publisher, rpc: RPCClient,
        recent: RecentEvents = RecentEvents(), deadlines: Deadlines = Deadlines(), configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "herald.gateway")
    ) {
        current = GatewayApps(apps: apps, credentials: credentials)
        self.providers = providers
        self.sources = sources
        endpoints = Endpoint.all(sources)
        self.limiter = limiter ?? RateLimiter(apps: apps)
        self.publisher = publisher
        events = PackingPublisher(publisher, packsInFlight: configuration.packsInFlight)
        self.rpc = rpc
        self.recent = recent
        self.deadlines = deadlines
        ingest = IngestSecrets(apps: apps)
        self.configuration = configuration
        self.logger = logger
    }

    /// Takes a changed apps file: its credentials (key and secret files read again), apps and
    /// rate limits serve every request from now on. Throws, changing nothing, when a key or
    /// secret file cannot be read.
    public func reload(_ apps: AppsConfiguration) throws {
        let credentials = try Credentials(apps: apps)
        current.replace(apps: apps, credentials: credentials)
        ingest.update(apps: apps)
        limiter.update(apps: apps)
    }

    /// Answers one request; never throws. An error no handler expected is logged with a
    /// request id, counted, and answered 500 with that id, so a user's report can be found
    /// in the logs.
    public func handle(_ request: Request) async -> Reply {
        do {
            let reply = try await answer(request)
            RequestCounters.shared.count(request.endpoint, reply.status)
            return reply
        } catch let error as GatewayError {
            RequestCounters.shared.count(request.endpoint, error.status)
            return Reply(status: error.status, body: error.body, contentType: "application/problem+json", retryAfter: error.retryAfter)
        } catch {
            let requestId = UUID().uuidString.lowercased()
            logger.error("unexpected error", metadata: [
                "requestId": "\(requestId)", "endpoint": "\(request.endpoint.rawValue)", "error": "\(error)",
            ])
            unexpectedErrors.increment()
            RequestCounters.shared.count(request.endpoint, 500)
            var problem = GatewayError(500, "Internal Server Error", "the request could not be handled; quote request id \(requestId)")
            problem.requestId = requestId
            return Reply(status: 500, body: problem.body, contentType: "application/problem+json")
        }
    }

    /// Checks that `authorization` may sign in to the console for `app` (an API key with the
    /// `console` or `admin` scope) and answers the key's id; throws 401 or 403 as any endpoint
    /// does. A client token is refused: it acts for one user, not for an operator.
    public func authorizeConsole(_ authorization: String?, app: String) throws(GatewayError) -> String {
        switch try credentials.authenticate(authorization, app: app, scope: .console) {
        case .server(let keyId): return keyId
        case .client, .pushTokenHolder: throw Self.clientRefused("a client token cannot sign in to the console: that takes an API key with the console scope")
        }
    }

    static func clientRefused(_ detail: String) -> GatewayError { GatewayError(403, "Forbidden", detail) }

    private func answer(_ request: Request) async throws -> Reply {
        let route = request.endpoint.route
        let app: String
        let caller: Caller
        if let secret = request.ingestSecret {
            // An ingest URL: its secret is the credential and names the app.
            (app, caller) = try admitIngest(secret, to: request)
        } else {
            app = request.parameters["app"] ?? ""
            // The credential first: an app that does not exist is answered like another app's
            // (403 for a key, 401 for a client token), so nobody learns which apps exist.
            caller = request.endpoint.provenByPushToken && !request.viaConsole
                ? Caller.pushTokenHolder
                : try credentials.authenticate(request.authorization, app: app, scope: request.viaConsole ? .console : route.scope)
        }
        if let identity = caller.client { try Self.admit(identity, to: request, route: route) }
        try limiter.admit(app: app, keyId: caller.rateLimitKey)
        let limit = configuration.bodyLimit(request.endpoint)
        guard request.body.count <= limit else {
            throw GatewayError(413, "Payload Too Large", "the body exceeds \(limit) bytes")
        }
        return try await route.handler(self, Call(request: request, app: app, now: Date(), caller: caller))
    }

    /// The app and caller of a request to an ingest URL: 404 for a secret no URL has, a revoked
    /// one, or another source's (which one is not said), 403 from outside the URL's sender
    /// networks; the URL acts as a server's key with the events scope, named `ingest:<id>`.
    func admitIngest(_ secret: String, to request: Request) throws(GatewayError) -> (app: String, caller: Caller) {
        let notFound = GatewayError(404, "Not Found", "no ingest URL has this secret for this endpoint: it is wrong, revoked, or another source's")
        switch ingest.match(secret: secret[...]) {
        case .notLoaded:
            throw GatewayError.unavailable("the gateway is still reading the ingest URLs; try again")
        case .unknown:
            throw notFound
        case .url(let entry):
            guard entry.source == request.endpoint.ingestSource else { throw notFound }
            if entry.unreadableNetworks {
                throw GatewayError(403, "Forbidden", "ingest URL \(entry.id) names a sender network that cannot be read, so it takes no request: fix its networks")
            }
            if !entry.networks.isEmpty {
                guard let peer = request.peer.flatMap(NetworkAddress.init), entry.networks.contains(where: { $0.contains(peer) }) else {
                    throw GatewayError(403, "Forbidden", "ingest URL \(entry.id) takes requests from its allowed sender networks only")
                }
            }
            return (entry.app, .server(keyId: "ingest:\(entry.id)"))
        }
    }

    /// What a client token may do (`Endpoint.route`'s `client` column): 403 for a server's
    /// endpoint, or another user's in the path. Its devices are checked by Registration.
    static func admit(_ identity: ClientIdentity, to request: Request, route: Endpoint.Route) throws(GatewayError) {
        guard !request.viaConsole else { throw clientRefused("a client token cannot use the console: that takes an API key with the console scope") }
        switch route.client {
        case .refused:
            throw clientRefused("a client token cannot call \(route.method.rawValue) \(route.path): that takes a server's API key with the \(route.scope.rawValue) scope")
        case .ownUser:
            guard request.parameter("userId") == identity.userId else {
                throw clientRefused("a client token acts only for its own user (sub): this path names another")
            }
        case .ownDevices:
            break
        }
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) throws -> Reply {
        Reply(status: status, body: try HeraldJSON.encode(value))
    }
}
