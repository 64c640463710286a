import Foundation
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
        /// The limit of a Webcom event's body (`HERALD_GATEWAY_WEBCOM_BODY_LIMIT`): a value
        /// over the providers' 4 KiB is accepted and reaches its devices degraded (`onlyKeys`,
        /// `tooBig`), as Webcom's own server would push it, instead of being refused.
        public var webcomBodyLimit: Int = 1024 * 1024
        public var publishTimeout: Duration = .seconds(5)
        public var commandTimeout: Duration = .seconds(5)
        /// How many packs of events await the broker's confirm at once; the events of the
        /// requests that arrive meanwhile leave together as the next pack.
        public var packsInFlight = 1
        /// Where commands go; Herald's command queues unless a test gives others.
        public var registrationQueue = HeraldTopology.CommandQueue.registration.name
        public var preferencesQueue = HeraldTopology.CommandQueue.preferences.name
        public init() {}

        /// The defaults, with `HERALD_GATEWAY_WEBCOM_BODY_LIMIT` (bytes) read from `environment`.
        public init(environment: [String: String]) throws {
            self.init()
            let reader = EnvironmentReader(environment)
            webcomBodyLimit = try reader.parse("HERALD_GATEWAY_WEBCOM_BODY_LIMIT", expected: "a number of bytes from 65536 to 67108864") {
                Int($0).flatMap { (64 * 1024...64 * 1024 * 1024).contains($0) ? $0 : nil }
            } ?? webcomBodyLimit
        }

        /// The largest body `endpoint` takes.
        public func bodyLimit(_ endpoint: Endpoint) -> Int {
            endpoint == .webcomEvents ? max(bodyLimit, webcomBodyLimit) : bodyLimit
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
        public init(
            endpoint: Endpoint, parameters: [String: String], query: [String: String] = [:], authorization: String?,
            idempotencyKey: String? = nil, ifMatch: String? = nil, body: Data, viaConsole: Bool = false
        ) {
            self.viaConsole = viaConsole
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
    /// parameters read the same way for every endpoint.
    public struct Call: Sendable {
        public let request: Request
        public let app: String
        public let now: Date
        public let caller: Caller

        /// `command` as this caller may send it: for a client token, wrapped so Registration
        /// runs it only within the token's user and profile ids.
        func acting(_ command: RegistrationCommand) -> RegistrationCommand {
            guard let identity = caller.client else { return command }
            return .actingFor(identity: identity, command: command)
        }

        func fields() throws -> JSONFields { try JSONFields(request.body) }

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
    public let limiter: RateLimiter
    let publisher: Publisher
    /// Events of concurrent requests travel to the broker together.
    let events: PackingPublisher
    let rpc: RPCClient
    let recent: RecentEvents
    /// Fails publishes whose confirm does not come in time; a `Service` of the executable.
    public let deadlines: Deadlines
    let configuration: Configuration
    let logger: Logger
    private let unexpectedErrors = Counter(label: "herald_gateway_unexpected_errors_total")

    public init(
        apps: AppsConfiguration, providers: ProviderRegistry, credentials: Credentials, limiter: RateLimiter? = nil, publisher: Publisher, rpc: RPCClient,
        recent: RecentEvents = RecentEvents(), deadlines: Deadlines = Deadlines(), configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "herald.gateway")
    ) {
        current = GatewayApps(apps: apps, credentials: credentials)
        self.providers = providers
        self.limiter = limiter ?? RateLimiter(apps: apps)
        self.publisher = publisher
        events = PackingPublisher(publisher, packsInFlight: configuration.packsInFlight)
        self.rpc = rpc
        self.recent = recent
        self.deadlines = deadlines
        self.configuration = configuration
        self.logger = logger
    }

    /// Takes a changed apps file: its credentials (key and secret files read again), apps and
    /// rate limits serve every request from now on. Throws, changing nothing, when a key or
    /// secret file cannot be read.
    public func reload(_ apps: AppsConfiguration) throws {
        let credentials = try Credentials(apps: apps)
        current.replace(apps: apps, credentials: credentials)
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
        case .client: throw Self.clientRefused("a client token cannot sign in to the console: that takes an API key with the console scope")
        }
    }

    static func clientRefused(_ detail: String) -> GatewayError { GatewayError(403, "Forbidden", detail) }

    private func answer(_ request: Request) async throws -> Reply {
        let app = request.parameters["app"] ?? ""
        let route = request.endpoint.route
        // The credential first: an app that does not exist is answered like another app's
        // (403 for a key, 401 for a client token), so nobody learns which apps exist.
        let caller = try credentials.authenticate(request.authorization, app: app, scope: request.viaConsole ? .console : route.scope)
        if let identity = caller.client { try Self.admit(identity, to: request, route: route) }
        try limiter.admit(app: app, keyId: caller.rateLimitKey)
        let limit = configuration.bodyLimit(request.endpoint)
        guard request.body.count <= limit else {
            throw GatewayError(413, "Payload Too Large", "the body exceeds \(limit) bytes")
        }
        return try await route.handler(self, Call(request: request, app: app, now: Date(), caller: caller))
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

    // MARK: Handlers, one per endpoint (see `Endpoint.route`)

    func postEvent(_ call: Call) async throws -> Reply { try await accept(SourceAdapters.canonical(call.request.body, app: call.app), at: call.now) }
    func smartIDPush(_ call: Call) async throws -> Reply { try await accept(SourceAdapters.smartID(call.fields(), app: call.app, now: call.now), at: call.now) }
    func evernymNotify(_ call: Call) async throws -> Reply {
        let app = apps.apps[call.app]
        return try await accept(SourceAdapters.evernym(call.fields(), app: call.app, now: call.now) { [providers] in providers.comMethodToken($0, app: app) }, at: call.now)
    }
    func upstraEvents(_ call: Call) async throws -> Reply { try await accept(SourceAdapters.upstra(call.fields(), idempotencyKey: call.request.idempotencyKey, app: call.app, now: call.now), at: call.now) }
    func emailMessages(_ call: Call) async throws -> Reply { try await accept(SourceAdapters.email(call.fields(), app: call.app, now: call.now), at: call.now) }
    func webcomEvents(_ call: Call) async throws -> Reply { try await accept(SourceAdapters.webcom(call.fields(), idempotencyKey: call.request.idempotencyKey, app: call.app, now: call.now), at: call.now) }

    func getEvent(_ call: Call) async throws -> Reply {
        let eventId = try call.parameter("eventId")
        var reply: RegistrationReply
        do {
            reply = try await self.call(RegistrationCommand.eventStatus(app: call.app, eventId: eventId), to: .registration, RegistrationReply.self)
        } catch let error as GatewayError where error.status == 404 && recent.contains(app: call.app, eventId: eventId) {
            // Accepted here moments ago, not resolved yet: known, with no deliveries so far.
            reply = RegistrationReply(event: EventStatus(eventId: eventId, resolved: false, deliveries: []))
        }
        reply.event = reply.event.map(PublicEventStatus.redacted)
        return try Self.json(200, reply)
    }

    func listEvents(_ call: Call) async throws -> Reply {
        let reply = try await self.call(RegistrationCommand.listEvents(app: call.app, query: try ListQuery(query: call.request.query).events()), to: .registration, RegistrationReply.self)
        return try Self.json(200, reply.events ?? EventPage(events: [], nextCursor: nil))
    }

    func getStats(_ call: Call) async throws -> Reply {
        let window = try ListQuery(query: call.request.query).window()
        // Registration's reply is the answer (`{"stats": …}`, thousands of minutes for a long window): passed on unread.
        return Reply(status: 200, body: try await callForBody(RegistrationCommand.stats(app: call.app, since: call.now.addingTimeInterval(-window), until: call.now), to: .registration))
    }

    func listDevices(_ call: Call) async throws -> Reply {
        try await devices(.listDevices(app: call.app, query: try ListQuery(query: call.request.query).devices(platforms: providers.devicePlatforms)))
    }

    func listUserDevices(_ call: Call) async throws -> Reply {
        let query = try ListQuery(query: call.request.query).devices(userId: try call.parameter("userId"), platforms: providers.devicePlatforms)
        return try await devices(call.acting(.listDevices(app: call.app, query: query)))
    }

    /// A page of devices, their tokens masked.
    private func devices(_ command: RegistrationCommand) async throws -> Reply {
        var page = try await call(command, to: .registration, RegistrationReply.self).devices ?? DevicePage(devices: [], nextCursor: nil)
        page.devices = page.devices.map(\.masked)
        return try Self.json(200, page)
    }

    func smartIDDevices(_ call: Call) async throws -> Reply {
        let body = try call.fields()
        // The profiles of profileID (one or a list) and profileIDs together.
        // The profiles of profileID (one or a list) and profileIDs together, each trimmed of
        // surrounding white space, as a push's pushId is.
        var profiles: [String] = []
        if body.has("profileID") {
            profiles += body.object["profileID"] is [Any] ? try body.strings("profileID") : [try SourceAdapters.trimmedId(body, "profileID")]
        }
        if body.has("profileIDs") { profiles += try body.strings("profileIDs") }
        profiles = try Self.trimmed(profiles, field: "profileID")
        guard !profiles.isEmpty else { throw GatewayError.invalid("profileID", "is required (or profileIDs)") }
        let os: DeviceOS = try body.oneOf("OS", ["iOS", "Android"]) == "iOS" ? .ios : .android
        // "For iOS: device token; For Android: device registration token": an APNs token
        // when the app has APNs settings, else FCM's. The token is also the device's id.
        let platform = providers.tokenPlatform(os: os, app: apps.apps[call.app])
        let token = try body.string("deviceID", maxLength: TextLimits.identifier)
        try refuseUnservedAPNsToken(token, os: os, platform: platform, app: call.app, field: "deviceID")
        if let problem = providers.tokenProblem(token, platform: platform) { throw GatewayError.invalid("deviceID", problem) }
        return try await registry(call.acting(.registerSmartIDDevice(app: call.app, token: token, os: os, platform: platform, profileIds: profiles)), status: 200)
    }

    /// Ids without the white space around them (`SourceAdapters.trimmedId` each).
    static func trimmed(_ ids: [String], field: String) throws(GatewayError) -> [String] {
        var result: [String] = []
        for (index, id) in ids.enumerated() { result.append(try SourceAdapters.trimmedId(id, field: "\(field)[\(index)]")) }
        return result
    }

    /// An iOS device's APNs token (hex) handed over where the app has no APNs account: it
    /// would go to FCM, which refuses it, and the device would be deleted at its first push.
    /// Refused here, naming what is missing.
    private func refuseUnservedAPNsToken(_ token: String, os: DeviceOS, platform: Platform, app: String, field: String) throws(GatewayError) {
        // An APNs token is the hex of 32 bytes (up to 100); an FCM token never is hex alone.
        guard os == .ios, platform != .apns, let bytes = Hex.decode(token), (32...100).contains(bytes.count) else { return }
        let missing = providers[.apns] == nil
            ? "this deployment runs no APNs provider"
            : "app \(app) has no APNs account (an apns section in the apps file)"
        throw GatewayError(422, "Unprocessable Content", "\(field): this is an APNs device token, but \(missing); register the device's FCM token, or add the app's APNs settings", field: field)
    }

    func evernymSponsee(_ call: Call) async throws -> Reply {
        let body = try call.fields()
        // The SDK's com-method object names its sponsee too; the path's is the one.
        let id = try call.parameter("id")
        if body.has("id"), try body.string("id", maxLength: 256) != id { throw GatewayError.invalid("id", "must match the path's sponsee id") }
        let type = try body.int("type")
        guard type == 3 || type == 4 else { throw GatewayError.invalid("type", "must be 3 or 4") }
        let value = try body.string("value")
        // Both types are pushed (3: Verity forwards to Herald, the sponsor, which pushes; 4:
        // Verity pushes itself, and a forward that reaches Herald anyway is pushed too): the
        // value must be a com method Herald can push to, unless the app forwards everything
        // to its own server (webhook mode), which gets the value as it is.
        let app = apps.apps[call.app]
        if app?.delivery.mode != .webhook, providers.comMethodToken(value, app: app) == nil {
            let accepted = providers.devicePlatforms.filter { providers.serves($0, app: app) }.map { "\($0.rawValue.uppercased()):<token>" }
            throw GatewayError.invalid("value", "must be a com method Herald can push to for this app (\(accepted.isEmpty ? "none: the app has no provider account" : accepted.joined(separator: ", "))); forwarding to the sponsor's own server is the app's webhook delivery mode")
        }
        return try await registry(.setSponsee(app: call.app, sponseeId: id, type: type, value: value), status: 200)
    }

    func emailAddressKey(_ call: Call) async throws -> Reply {
        let body = try call.fields()
        // A client token's key is its user's: the owner is the token's `sub` unless the body names one.
        return try await registry(call.acting(.setAddressKey(
            app: call.app, emailAddressId: try call.parameter("id"), keyId: try body.string("keyId", maxLength: 256),
            publicKey: try body.string("publicKey", maxLength: 16 * 1024), ownerUserId: try body.optionalString("owner", maxLength: 256) ?? call.caller.client?.userId,
            deviceId: try body.optionalString("deviceId", maxLength: TextLimits.identifier))), status: 200)
    }

    func putDevice(_ call: Call) async throws -> Reply {
        let body = try call.fields()
        let key: DeviceKey? = try body.optionalNested("key").map { key throws(GatewayError) in
            DeviceKey(keyId: try key.string("keyId", maxLength: 256), p256dh: try key.string("p256dh", maxLength: 512), auth: try key.string("auth", maxLength: 64))
        }
        // A device is reached through a provider it registered with; webhooks are the app's
        // (its delivery mode), not a device's.
        let os = DeviceOS(rawValue: try body.oneOf("os", DeviceOS.allCases.map(\.rawValue)))!
        // Without a platform (an SDK that hands over the OS's token), the OS's own: APNs for
        // iOS when the app has APNs settings, else FCM.
        let platform = body.has("platform")
            ? Platform(rawValue: try body.oneOf("platform", providers.devicePlatforms.map(\.rawValue)))!
            : providers.tokenPlatform(os: os, app: apps.apps[call.app])
        let token = try body.string("token")
        if !body.has("platform") { try refuseUnservedAPNsToken(token, os: os, platform: platform, app: call.app, field: "token") }
        if let problem = providers.tokenProblem(token, platform: platform) { throw GatewayError.invalid("token", problem) }
        let registration = DeviceRegistration(
            deviceId: try call.parameter("deviceId"), platform: platform, token: token,
            // A client token's device is its user's: the token's `sub` unless the body names a user.
            os: os, userId: try body.optionalString("userId", maxLength: 256) ?? call.caller.client?.userId,
            pushIds: body.has("pushIds") ? try Self.trimmed(try body.strings("pushIds", allowEmpty: true), field: "pushIds") : [],
            locale: try body.optionalString("locale", maxLength: 35), key: key)
        return try await registry(call.acting(.registerDevice(app: call.app, registration: registration)), status: 200)
    }

    func getDevice(_ call: Call) async throws -> Reply {
        try await registry(call.acting(.getDevice(app: call.app, deviceId: try call.parameter("deviceId"))), status: 200)
    }

    func deleteDevice(_ call: Call) async throws -> Reply {
        let userId = call.request.query["userId"]
        if let userId, !TextLimits.fits(userId, maximum: TextLimits.identifier) {
            throw GatewayError.invalid("userId", "must be 1 to \(TextLimits.identifier) characters")
        }
        return try await registry(call.acting(.unregisterDevice(app: call.app, deviceId: try call.parameter("deviceId"), userId: userId)), status: 200)
    }

    func getConfiguration(_ call: Call) async throws -> Reply {
        try await requireDevice(call)
        return try await configuration(.getDeviceConfiguration(app: call.app, deviceId: try call.parameter("deviceId")))
    }

    /// An `If-Match` value as the document allows it: 1 to 1,000 printable ASCII characters,
    /// neither first nor last a space.
    static func isEntityTagList(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard (1...1000).contains(bytes.count), bytes.first != 0x20, bytes.last != 0x20 else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// A device configuration command's answer, tagged with the configuration's `ETag`.
    private func configuration(_ command: PreferenceCommand) async throws -> Reply {
        let answer = try await call(command, to: .preferences, PreferenceReply.self)
        var reply = try Self.json(200, answer)
        reply.entityTag = answer.configuration?.entityTag
        return reply
    }

    /// A configuration belongs to a registered device: 404 for one never registered or removed
    /// (and, for a client token, 403 for another user's device).
    private func requireDevice(_ call: Call) async throws {
        _ = try await self.call(call.acting(.getDevice(app: call.app, deviceId: try call.parameter("deviceId"))), to: .registration, RegistrationReply.self)
    }

    func putConfiguration(_ call: Call) async throws -> Reply {
        let configuration: NotificationConfiguration
        if let object = try? JSONSerialization.jsonObject(with: call.request.body),
           let null = JSONFields.firstNull(in: object, at: "", known: JSONFields.configurationFields) {
            throw GatewayError.invalid(null, "must not be null (leave it out instead)")
        }
        do { configuration = try HeraldJSON.decode(NotificationConfiguration.self, from: call.request.body) } catch let error as DecodingError {
            throw GatewayError(400, "Invalid request", HeraldJSON.describe(error))
        } catch { throw GatewayError(400, "Malformed JSON", "the body is not valid JSON") }
        if let ifMatch = call.request.ifMatch, !Self.isEntityTagList(ifMatch) {
            throw GatewayError.invalid("If-Match", "must be entity tags (\"…\", comma-separated) or *: 1 to 1,000 printable characters")
        }
        try await requireDevice(call)
        return try await self.configuration(.setDeviceConfiguration(
            app: call.app, deviceId: try call.parameter("deviceId"), configuration: configuration, ifMatch: call.request.ifMatch))
    }

    func getUserPreferences(_ call: Call) async throws -> Reply {
        try await preference(.getUser(app: call.app, userId: try call.parameter("userId")))
    }

    func putUserPreferences(_ call: Call) async throws -> Reply {
        let body = try call.fields()
        let preferences = UserPreferences(enabled: try body.optionalBool("enabled") ?? true, mutedKinds: body.has("mutedKinds") ? try body.strings("mutedKinds", allowEmpty: true) : [])
        return try await preference(.setUser(app: call.app, userId: try call.parameter("userId"), preferences: preferences))
    }

    func getChannelPreferences(_ call: Call) async throws -> Reply {
        try await preference(.getChannel(app: call.app, userId: try call.parameter("userId"), channelId: try call.parameter("channelId")))
    }

    func putChannelPreferences(_ call: Call) async throws -> Reply {
        guard let enabled = try call.fields().optionalBool("enabled") else { throw GatewayError.invalid("enabled", "is required") }
        return try await preference(.setChannel(app: call.app, userId: try call.parameter("userId"), channelId: try call.parameter("channelId"), enabled: enabled))
    }

    func getSettings(_ call: Call) async throws -> Reply {
        try await preference(.getNetwork(app: call.app))
    }

    func putSettings(_ call: Call) async throws -> Reply {
        guard let enabled = try call.fields().optionalBool("enabled") else { throw GatewayError.invalid("enabled", "is required") }
        return try await preference(.setNetwork(app: call.app, enabled: enabled))
    }

    /// Publishes `event`, stamped with the time it was accepted, and answers 202 once the
    /// broker confirmed it; a repeated id inside the window is answered 202 without a second
    /// publish.
    private func accept(_ event: NotificationEvent, at now: Date) async throws -> Reply {
        // Accepted now, whatever a canonical body said: retries end two hours after it.
        var event = event
        event.acceptedAt = now
        if event.options.ttlSeconds == nil {
            // The app's configured TTL for this source and kind (or Herald's), not four weeks.
            event.options.ttlSeconds = (apps.apps[event.app]?.defaultTTL ?? DefaultTTL()).seconds(source: event.source, kind: event.kind)
        }
        if case .tokens(let tokens) = event.audience {
            // A token goes to its platform's provider: one this deployment runs.
            for (index, token) in tokens.enumerated() {
                guard providers[token.platform]?.deliversEvents == true else {
                    throw GatewayError.invalid("audience.tokens[\(index)].platform", "must be one of \(providers.eventPlatforms.map(\.rawValue).joined(separator: ", "))")
                }
                if let problem = providers.tokenProblem(token.token, platform: token.platform) {
                    throw GatewayError.invalid("audience.tokens[\(index)].token", problem)
                }
            }
        }
        var body = JSONWriter(capacity: 96)
        body.beginObject()
        body.key("eventId"); body.string(event.id)
        body.key("status"); body.string("accepted")
        body.endObject()
        let accepted = Reply(status: 202, body: body.data)
        if recent.contains(app: event.app, eventId: event.id) { return accepted }
        guard publisher.isConnected else { throw GatewayError.unavailable("the broker is unreachable; try again") }
        // Under a resource alarm the event would only wait in memory: refuse it now.
        guard publisher.blockedReason == nil else { throw GatewayError.unavailable("the broker refuses publishes for now (resource alarm); try again") }
        let message = try OutgoingMessage(contract: event, exchange: HeraldTopology.Exchange.events.name, routingKey: event.routingKey, mandatory: true)
        do {
            try await deadlines.publish(message, with: events, timeout: configuration.publishTimeout)
        } catch {
            switch (error as? MessagingError)?.reason {
            case .invalidMessage?: throw GatewayError(400, "Invalid request", (error as! MessagingError).message)
            // A queue at its length limit refuses publishes (`reject-publish`).
            case .publishRejected?: throw GatewayError.unavailable("the broker refused the event: a queue is full; try again later")
            default: throw GatewayError.unavailable("the event was not confirmed by the broker; try again")
            }
        }
        recent.insert(app: event.app, eventId: event.id)
        return accepted
    }

    /// A registration command's answer, with every device's token masked: outside the
    /// provider request Herald shows only its first and last six characters.
    private func registry(_ command: RegistrationCommand, status: Int) async throws -> Reply {
        var reply = try await call(command, to: .registration, RegistrationReply.self)
        reply.device = reply.device?.masked
        return try Self.json(status, reply)
    }

    private func preference(_ command: PreferenceCommand) async throws -> Reply {
        try Self.json(200, try await call(command, to: .preferences, PreferenceReply.self))
    }

    /// An RPC call to `target`; a typed error becomes the problem it names, no answer (or no
    /// broker) a 503. A reply that does not decode is a defect, not an outage: it is rethrown
    /// and answered 500.
    private func call<C: Encodable & Sendable, R: Decodable>(_ command: C, to target: CommandTarget, _ reply: R.Type) async throws -> R {
        let (queue, type) = Self.destination(target, configuration)
        return try await answering(target) {
            try await rpc.call(command, type: type, queue: queue, expecting: R.self, timeout: configuration.commandTimeout)
        }
    }

    /// An RPC call whose reply body is answered as it came, unread: for a large answer the
    /// gateway shows as the service wrote it (the stats), so it is not read and written again.
    private func callForBody<C: Encodable & Sendable>(_ command: C, to target: CommandTarget) async throws -> Data {
        let (queue, type) = Self.destination(target, configuration)
        return try await answering(target) {
            try await rpc.callForBody(command, type: type, queue: queue, timeout: configuration.commandTimeout)
        }
    }

    private static func destination(_ target: CommandTarget, _ configuration: Configuration) -> (queue: String, type: String) {
        switch target {
        case .registration: (configuration.registrationQueue, RegistrationCommand.contractName)
        case .preferences: (configuration.preferencesQueue, PreferenceCommand.contractName)
        }
    }

    /// Runs an RPC call: a typed error becomes the problem it names, no answer a 503.
    private func answering<T>(_ target: CommandTarget, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CommandError {
            let title = switch error.status {
            case 403: "Forbidden"
            case 404: "Not Found"
            case 409: "Conflict"
            case 412: "Precondition Failed"
            case 422: "Unprocessable Content"
            default: "Invalid request"
            }
            throw GatewayError(error.status, title, error.detail, field: error.code.hasPrefix("invalid-") ? String(error.code.dropFirst(8)) : nil)
        } catch is MessagingError {
            throw GatewayError.unavailable("the \(target.rawValue) service did not answer; try again")
        }
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) throws -> Reply {
        Reply(status: status, body: try HeraldJSON.encode(value))
    }
}

extension DeviceRecord {
    /// The device as the gateway shows it: its token masked (only its provider sees it whole).
    var masked: DeviceRecord {
        var device = self
        device.registration.token = TokenMask.masked(registration.token)
        return device
    }
}
