import Foundation
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
        public var publishTimeout: Duration = .seconds(5)
        public var commandTimeout: Duration = .seconds(5)
        /// Where commands go; Herald's command queues unless a test gives others.
        public var registrationQueue = HeraldTopology.CommandQueue.registration.name
        public var preferencesQueue = HeraldTopology.CommandQueue.preferences.name
        public init() {}
    }

    /// One request as the gateway sees it.
    public struct Request: Sendable {
        public var endpoint: Endpoint
        public var parameters: [String: String]
        public var query: [String: String]
        public var authorization: String?
        public var body: Data
        public init(endpoint: Endpoint, parameters: [String: String], query: [String: String] = [:], authorization: String?, body: Data) {
            self.endpoint = endpoint
            self.parameters = parameters
            self.query = query
            self.authorization = authorization
            self.body = body
        }
    }

    /// The answer: status and JSON body (problem+json for errors).
    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var contentType = "application/json"
        public var retryAfter: Int?
    }

    let apps: AppsConfiguration
    let keys: APIKeys
    let publisher: Publisher
    let rpc: RPCClient
    let recent: RecentEvents
    let configuration: Configuration

    public init(apps: AppsConfiguration, keys: APIKeys, publisher: Publisher, rpc: RPCClient, recent: RecentEvents = RecentEvents(), configuration: Configuration = Configuration()) {
        self.apps = apps
        self.keys = keys
        self.publisher = publisher
        self.rpc = rpc
        self.recent = recent
        self.configuration = configuration
    }

    /// Answers one request; never throws.
    public func handle(_ request: Request) async -> Reply {
        do {
            let reply = try await answer(request)
            RequestCounters.shared.count(request.endpoint, reply.status)
            return reply
        } catch let error as GatewayError {
            RequestCounters.shared.count(request.endpoint, error.status)
            return Reply(status: error.status, body: error.body, contentType: "application/problem+json", retryAfter: error.retryAfter)
        } catch {
            let problem = GatewayError(500, "Internal Server Error", "the request could not be handled")
            return Reply(status: 500, body: problem.body, contentType: "application/problem+json")
        }
    }

    private func answer(_ request: Request) async throws -> Reply {
        let app = request.parameters["app"] ?? ""
        guard apps.apps[app] != nil else { throw GatewayError(404, "Not Found", "no app \(app)") }
        try keys.authorize(request.authorization, app: app, scope: request.endpoint.scope)
        guard request.body.count <= configuration.bodyLimit else {
            throw GatewayError(413, "Payload Too Large", "the body exceeds \(configuration.bodyLimit) bytes")
        }
        let now = Date()
        func fields() throws -> JSONFields { try JSONFields(request.body) }
        func parameter(_ name: String) throws -> String {
            guard let value = request.parameters[name], !value.isEmpty, value.utf8.count <= 256 else {
                throw GatewayError.invalid(name, "must be 1 to 256 bytes")
            }
            return value
        }
        switch request.endpoint {
        case .postEvent: return try await accept(SourceAdapters.canonical(request.body, app: app))
        case .smartIDPush: return try await accept(SourceAdapters.smartID(fields(), app: app, now: now))
        case .evernymNotify: return try await accept(SourceAdapters.evernym(fields(), app: app, now: now))
        case .upstraEvents: return try await accept(SourceAdapters.upstra(fields(), raw: request.body, app: app, now: now))
        case .emailMessages: return try await accept(SourceAdapters.email(fields(), app: app, now: now))
        case .webcomEvents: return try await accept(SourceAdapters.webcom(fields(), raw: request.body, app: app, now: now))

        case .smartIDDevices:
            let body = try fields()
            let profiles: [String]
            if body.has("profileIDs") { profiles = try body.strings("profileIDs") } else if body.object["profileID"] is [Any] { profiles = try body.strings("profileID") } else { profiles = [try body.string("profileID", maxLength: 256)] }
            let os = try body.oneOf("OS", ["iOS", "Android"])
            let token = try body.string("deviceID")
            return try await registry(.registerSmartIDDevice(app: app, token: token, os: os == "iOS" ? .ios : .android, profileIds: profiles), status: 200)
        case .evernymSponsee:
            let body = try fields()
            let id = try body.string("id", maxLength: 256)
            guard id == (try parameter("id")) else { throw GatewayError.invalid("id", "must match the path's sponsee id") }
            let type = try body.int("type")
            guard type == 3 || type == 4 else { throw GatewayError.invalid("type", "must be 3 or 4") }
            return try await registry(.setSponsee(app: app, sponseeId: id, type: type, value: try body.string("value")), status: 200)
        case .emailAddressKey:
            let body = try fields()
            return try await registry(.setAddressKey(
                app: app, emailAddressId: try parameter("id"), keyId: try body.string("keyId", maxLength: 256),
                publicKey: try body.string("publicKey", maxLength: 16 * 1024), ownerUserId: try body.optionalString("owner", maxLength: 256)), status: 200)
        case .putDevice:
            let body = try fields()
            let key: DeviceKey? = try body.optionalNested("key").map { key throws(GatewayError) in
                DeviceKey(keyId: try key.string("keyId", maxLength: 256), p256dh: try key.string("p256dh", maxLength: 512), auth: try key.string("auth", maxLength: 64))
            }
            let platform = try body.oneOf("platform", Platform.allCases.map(\.rawValue))
            let os = try body.oneOf("os", DeviceOS.allCases.map(\.rawValue))
            let registration = DeviceRegistration(
                deviceId: try parameter("deviceId"), platform: Platform(rawValue: platform)!, token: try body.string("token"),
                os: DeviceOS(rawValue: os)!, userId: try body.optionalString("userId", maxLength: 256),
                pushIds: body.has("pushIds") ? try body.strings("pushIds", allowEmpty: true) : [],
                locale: try body.optionalString("locale", maxLength: 35), key: key)
            return try await registry(.registerDevice(app: app, registration: registration), status: 200)
        case .getDevice:
            return try await registry(.getDevice(app: app, deviceId: try parameter("deviceId")), status: 200)
        case .deleteDevice:
            let reply = try await call(RegistrationCommand.unregisterDevice(app: app, deviceId: try parameter("deviceId"), userId: request.query["userId"]), RegistrationCommand.contractName, HeraldModel.RegistrationReply.self)
            if reply.removed == false, reply.detail?.hasPrefix("no device") == true { throw GatewayError(404, "Not Found", reply.detail ?? "no such device") }
            return try Self.json(200, reply)

        case .getEvent:
            return try await registry(.eventStatus(app: app, eventId: try parameter("eventId")), status: 200)

        case .getConfiguration:
            return try await preference(.getDeviceConfiguration(app: app, deviceId: try parameter("deviceId")))
        case .putConfiguration:
            let configuration: NotificationConfiguration
            do { configuration = try HeraldJSON.decode(NotificationConfiguration.self, from: request.body) } catch let error as DecodingError {
                throw GatewayError(400, "Invalid request", HeraldJSON.describe(error))
            } catch { throw GatewayError(400, "Malformed JSON", "the body is not valid JSON") }
            return try await preference(.setDeviceConfiguration(app: app, deviceId: try parameter("deviceId"), configuration: configuration))
        case .getUserPreferences:
            return try await preference(.getUser(app: app, userId: try parameter("userId")))
        case .putUserPreferences:
            let body = try fields()
            let preferences = UserPreferences(enabled: try body.optionalBool("enabled") ?? true, mutedKinds: body.has("mutedKinds") ? try body.strings("mutedKinds", allowEmpty: true) : [])
            return try await preference(.setUser(app: app, userId: try parameter("userId"), preferences: preferences))
        case .getChannelPreferences:
            return try await preference(.getChannel(app: app, userId: try parameter("userId"), channelId: try parameter("channelId")))
        case .putChannelPreferences:
            let enabled = try fields().optionalBool("enabled")
            guard let enabled else { throw GatewayError.invalid("enabled", "is required") }
            return try await preference(.setChannel(app: app, userId: try parameter("userId"), channelId: try parameter("channelId"), enabled: enabled))
        case .getSettings:
            return try await preference(.getNetwork(app: app))
        case .putSettings:
            guard let enabled = try fields().optionalBool("enabled") else { throw GatewayError.invalid("enabled", "is required") }
            return try await preference(.setNetwork(app: app, enabled: enabled))
        }
    }

    /// Publishes `event` and answers 202 once the broker confirmed it; a repeated id inside
    /// the window is answered 202 without a second publish.
    private func accept(_ event: NotificationEvent) async throws -> Reply {
        var body = JSONWriter(capacity: 96)
        body.beginObject()
        body.key("eventId"); body.string(event.id)
        body.key("status"); body.string("accepted")
        body.endObject()
        let accepted = Reply(status: 202, body: body.data)
        if recent.contains(app: event.app, eventId: event.id) { return accepted }
        guard publisher.isConnected else { throw GatewayError.unavailable("the broker is unreachable; try again") }
        let message = try OutgoingMessage(contract: event, exchange: HeraldTopology.Exchange.events.name, routingKey: event.routingKey, mandatory: true)
        do {
            try await publish(message, with: publisher, timeout: configuration.publishTimeout)
        } catch {
            if let error = error as? MessagingError, error.reason == .invalidMessage { throw GatewayError(400, "Invalid request", error.message) }
            throw GatewayError.unavailable("the event was not confirmed by the broker; try again")
        }
        recent.insert(app: event.app, eventId: event.id)
        return accepted
    }

    private func registry(_ command: RegistrationCommand, status: Int) async throws -> Reply {
        try Self.json(status, try await call(command, RegistrationCommand.contractName, RegistrationReply.self))
    }

    private func preference(_ command: PreferenceCommand) async throws -> Reply {
        try Self.json(200, try await call(command, PreferenceCommand.contractName, PreferenceReply.self))
    }

    /// An RPC call; a typed error becomes the problem it names, no answer a 503.
    private func call<C: Encodable & Sendable, R: Decodable>(_ command: C, _ type: String, _ reply: R.Type) async throws -> R {
        let queue = type == RegistrationCommand.contractName ? configuration.registrationQueue : configuration.preferencesQueue
        do {
            return try await rpc.call(command, type: type, queue: queue, expecting: R.self, timeout: configuration.commandTimeout)
        } catch let error as CommandError {
            throw GatewayError(error.status, error.status == 404 ? "Not Found" : "Invalid request", error.detail, field: error.code.hasPrefix("invalid-") ? String(error.code.dropFirst(8)) : nil)
        } catch {
            throw GatewayError.unavailable("the \(type.contains("registration") ? "registration" : "preferences") service did not answer; try again")
        }
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) throws -> Reply {
        Reply(status: status, body: try HeraldJSON.encode(value))
    }
}
