import Crypto
import Foundation
import Gateway
import HeraldDomain
import HeraldSources
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import Hummingbird
import Logging
import Messaging
import Preferences
import Registration
import ServiceKit
import ServiceLifecycle

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The port a test server got.
actor BoundPort {
    var port: Int?
    func set(_ value: Int) { port = value }
}

/// A gateway on a free port with the real broker: its events are collected from a private
/// queue bound to `herald.events`, and its commands are answered by Registration's and
/// Preferences' own command handlers (real stores) on private command queues.
final class GatewayFixture: Sendable {
    static let keys = [
        "full": "demo-key-full", "events": "demo-key-events", "devices": "demo-key-devices", "unscoped": "demo-key-unscoped", "other": "other-key",
    ]
    let app: String
    let port: Int
    let events: Collector
    let runtime: ServiceRuntime
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let directory: URL
    let eventQueue: QueueSpec
    let commandQueues: [QueueSpec]
    let rpc: RPCClient
    let gateway: Gateway

    static func sha(_ key: String) -> String { SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// `rateLimits`, `defaultTTL`: the app's sections of those names in the apps file (YAML
    /// flow style), if any; `providers`: the providers the gateway serves; `extraAppSettings`:
    /// one more line of the app's settings (a provider's section, in flow style).
    init(
        amqpURL: String = TestBroker.urlString, commandTimeout: Duration = TestBroker.rpcTimeout, commandServers: Bool = true,
        rateLimits: String? = nil, defaultTTL: String? = nil, providers: ProviderRegistry = .herald, extraAppSettings: String? = nil
    ) async throws {
        let id = UUID().uuidString.prefix(8).lowercased()
        app = "gw-\(id)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-gateway-\(id)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let yaml = """
            apps:
              \(app):
                apiKeys:
                  - { id: full, sha256: \(Self.sha(Self.keys["full"]!)), scopes: [events, devices, admin] }
                  - { id: unscoped, sha256: \(Self.sha(Self.keys["unscoped"]!)) }
                  - { id: events, sha256: \(Self.sha(Self.keys["events"]!)), scopes: [events] }
                  - { id: devices, sha256: \(Self.sha(Self.keys["devices"]!)), scopes: [devices] }
                fcm: { serviceAccountFile: /nonexistent/service-account.json }
                \(rateLimits.map { "rateLimits: \($0)" } ?? "")
                \(defaultTTL.map { "defaultTTL: \($0)" } ?? "")
                \(extraAppSettings ?? "")
              other-\(id):
                apiKeys:
                  - { id: other, sha256: \(Self.sha(Self.keys["other"]!)) }
            """
        let config = directory.appendingPathComponent("herald.yaml")
        try Data(yaml.utf8).write(to: config)
        // Classic: RabbitMQ 3.10 refuses publishes to a quorum queue declared moments earlier.
        eventQueue = QueueSpec("test.gateway.events.\(id)", kind: .classic, durable: false, autoDelete: false)
        commandQueues = [QueueSpec("test.gateway.registration.\(id)", kind: .classic, durable: false, autoDelete: true),
                         QueueSpec("test.gateway.preferences.\(id)", kind: .classic, durable: false, autoDelete: true)]
        // Only what this gateway touches: declaring Herald's whole topology on every
        // connection of dozens of fixtures at once strains the broker.
        let topology = AMQPTopology(
            exchanges: [HeraldTopology.Exchange.events], queues: [eventQueue] + commandQueues,
            bindings: [BindingSpec(exchange: HeraldTopology.Exchange.events.name, queue: eventQueue.name, routingKey: "#")])
        runtime = try ServiceRuntime(
            name: "test-gateway-\(id)", defaultPort: 0,
            environment: ["HERALD_AMQP_URL": amqpURL, "HERALD_HTTP_PORT": "0", "HERALD_HTTP_HOST": "127.0.0.1",
                          "HERALD_CONFIG": config.path, "HERALD_LOG_LEVEL": "critical"],
            topology: topology)
        var configuration = Gateway.Configuration()
        configuration.registrationQueue = commandQueues[0].name
        configuration.preferencesQueue = commandQueues[1].name
        configuration.commandTimeout = commandTimeout
        rpc = RPCClient(configuration: runtime.connection("rpc"))
        let herald = try HeraldConfiguration(environment: runtime.environment, providers: providers, sources: .herald)
        let gateway = Gateway(
            apps: herald.apps, providers: providers, sources: herald.sources, credentials: try Credentials(apps: herald.apps), publisher: runtime.requirePublisher,
            rpc: rpc, configuration: configuration)
        self.gateway = gateway
        let registration = RegistrationCommands(store: try SQLiteRegistrationStore(directory: directory))
        let preferences = PreferenceCommands(store: try await PreferenceStore(directory: directory))
        let services: [any Service] = amqpURL == TestBroker.urlString && commandServers ? [
            CommandServer(queue: commandQueues[0], runtime: runtime, handler: registration.handle),
            CommandServer(queue: commandQueues[1], runtime: runtime, handler: preferences.handle),
        ] : []
        events = Collector(runtime.connection("collect"), queue: eventQueue.name, prefetch: 1000)
        let runtime = runtime
        let router = Router(context: HeraldRequestContext.self)
        GatewayRoutes.add(to: router, gateway: gateway)
        // Port 0: the system picks a free port, reported once the server listens.
        let bound = BoundPort()
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in await bound.set(channel.localAddress?.port ?? 0) }, logger: Logger(label: "test"))
        // As the executable runs them: the clients first, so they stop after the server.
        group = ServiceGroup(services: [rpc, gateway.deadlines] + services + [application], logger: Logger(label: "test"))
        let group = group
        task = Task { try await group.run() }
        _ = runtime
        try await eventually(timeout: .seconds(60), "the gateway to listen") { await bound.port != nil }
        port = await bound.port!
        if amqpURL == TestBroker.urlString {
            try await eventually(timeout: .seconds(60), "the broker, the command servers and the RPC client") { [rpc] in
                runtime.readiness.isReady && runtime.requirePublisher.isConnected && rpc.isConnected
            }
        }
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await events.stop()
        await runtime.requirePublisher.close()
        try? await TestBroker.admin.delete(queue: eventQueue.name)
        try? FileManager.default.removeItem(at: directory)
    }

    struct Answer: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    }

    /// A request to this gateway with the given key (`nil`: no Authorization header).
    func send(
        _ method: String, _ path: String, key: String? = GatewayFixture.keys["full"], json: Any? = nil, body: Data? = nil, headers: [String: String] = [:]
    ) async -> Answer {
        let payload = body ?? json.map { try! JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
        return await Self.request(port: port, method, path.replacingOccurrences(of: "{app}", with: app), key: key, body: payload, headers: headers)
    }

    static func request(port: Int, _ method: String, _ path: String, key: String? = nil, body: Data? = nil, headers: [String: String] = [:]) async -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (name, value) in http?.allHeaderFields ?? [:] { headers[String(describing: name).lowercased()] = String(describing: value) }
            return Answer(status: http?.statusCode ?? 0, body: data, headers: headers)
        } catch {
            return Answer(status: 0, body: Data("\(error)".utf8), headers: [:])
        }
    }

    /// The events of this fixture's app collected so far (other tests' gateways publish to
    /// the same exchange).
    /// This app's events, each once. The collector binds `#` on the shared events exchange
    /// and the broker hands a queue's messages over at least once: under CI's load a copy of
    /// one event was seen twice (a consumer's redelivery or a publisher's repeat after a lost
    /// confirm), which Registration drops as a repeat, and which made tests that count
    /// events fail. A second copy of an event id is left out here.
    /// This app's events as collected, each once. The collector takes every event published to
    /// `herald.events`, other tests' among them, and one of those (EndToEndTracingTests') is
    /// undecodable on purpose: a message that is not an event is none of this gateway's, which
    /// encodes every event it publishes.
    func published() async throws -> [NotificationEvent] {
        var seen = Set<String>()
        return await events.inbox.messages.compactMap { try? $0.decode(NotificationEvent.self) }.filter { $0.app == app && seen.insert($0.id).inserted }
    }

    /// Waits until `condition` holds over this app's events.
    /// A timeout says what the collector holds (CI once saw one event not arrive in 60 s).
    func waitForEvents(timeout: Duration = .seconds(60), _ what: String, _ condition: @escaping @Sendable ([NotificationEvent]) -> Bool) async throws {
        do {
            try await eventually(timeout: timeout, what) { [self] in condition(try await published()) }
        } catch let failure as TestFailure {
            let messages = await events.inbox.messages
            let apps = messages.compactMap { try? $0.decode(NotificationEvent.self).app }
            throw TestFailure("\(failure); the collector holds \(messages.count) messages, \(apps.filter { $0 == app }.count) of app \(app); consumer connected: \(events.consumer.isConnected)")
        }
    }
}

