import Foundation
import HeraldTracing
import Hummingbird
import Logging
import Messaging
import ServiceLifecycle

/// What every Herald executable shares: its environment, logging, metrics, the health
/// endpoints, one confirmed publisher, and one `ServiceGroup` that shuts everything down
/// gracefully on SIGTERM or SIGINT (stages first, the publisher last). It knows nothing of
/// apps, platforms or events: the broker topology it declares is given to it
/// (HeraldDomain's `HeraldService` gives Herald's).
public final class ServiceRuntime: Sendable {
    public let name: String
    public let environment: ServiceEnvironment
    public let logger: Logger
    public let readiness = Readiness()
    /// Declared on every broker connection this runtime opens.
    public let topology: AMQPTopology
    /// Where a stage dead-letters an input when its queue names no dead-letter exchange.
    public let deadLetterExchange: String
    /// The process's confirmed publisher; nil for services that do not use the broker.
    public let publisher: Publisher?
    /// Where health and metrics are served apart from the public API (the gateway's), or nil
    /// when they share the service's one port.
    public let opsPort: Int?
    /// Asked for, the services shut down gracefully and the process starts again in place.
    public let inPlaceRestart = InPlaceRestart()
    /// The span exporter when tracing is on (`OTEL_*`, see `TracingConfiguration`): it runs
    /// first and stops last, so the spans of a shutdown are flushed too.
    let tracer: (any Service)?

    /// Reads the environment, sets up logging and metrics, and starts connecting to the
    /// broker (unless `usesBroker` is false), declaring `topology` (its quorum queues
    /// replicated as `HERALD_QUORUM_REPLICAS` says). A service with a public API gives
    /// `defaultOpsPort`, so health and metrics are not on the public port (`HERALD_OPS_PORT`
    /// moves them). Throws `ConfigurationError`.
    public init(
        name: String, defaultPort: Int, defaultOpsPort: Int? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        usesBroker: Bool = true, topology: AMQPTopology = AMQPTopology(), deadLetterExchange: String = "stage.dead-letters"
    ) throws {
        self.name = name
        let settings = try ServiceEnvironment(environment, defaultPort: defaultPort)
        self.environment = settings
        opsPort = defaultOpsPort.map { settings.opsPort ?? $0 }
        logger = HeraldLogging.bootstrap(service: name, level: settings.logLevel, format: settings.logFormat)
        _ = HeraldMetrics.registry
        do {
            tracer = try HeraldTracing.bootstrap(TracingConfiguration(environment: environment, serviceName: name), logger: logger)
        } catch let error as TracingConfigurationError {
            throw ConfigurationError(.invalidValue, setting: error.variable, error.reason)
        }
        let topology = topology.replicated(settings.quorumReplicas)
        self.topology = topology
        self.deadLetterExchange = deadLetterExchange
        if usesBroker {
            let publisher = Publisher(configuration: Self.connection(name: name, role: "publisher", settings: settings, topology: topology, logger: logger))
            readiness.register("broker") { publisher.isConnected }
            // A resource alarm: the broker takes no publishes until it lifts.
            readiness.register("broker-accepts-publishes") { publisher.blockedReason == nil }
            self.publisher = publisher
        } else {
            publisher = nil
        }
    }

    /// The configuration of one more broker connection, named `<service>/<role>`.
    public func connection(_ role: String) -> ConnectionConfiguration {
        Self.connection(name: name, role: role, settings: environment, topology: topology, logger: logger)
    }

    private static func connection(name: String, role: String, settings: ServiceEnvironment, topology: AMQPTopology, logger: Logger) -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration(url: settings.amqpURL, name: "\(name)/\(role)", topology: topology, logger: logger)
        configuration.failover = settings.amqpFailover
        configuration.confirmTimeout = settings.confirmTimeout
        return configuration
    }

    /// The publisher; only for services created with `usesBroker: true`.
    public var requirePublisher: Publisher {
        guard let publisher else { preconditionFailure("\(name) was created without a broker connection") }
        return publisher
    }

    /// Runs the HTTP server (health, readiness, metrics and `routes`; `opsRoutes` beside
    /// health and metrics on the ops port) and `services` until
    /// SIGTERM or SIGINT, then shuts them down in reverse order and returns. `clients` are
    /// what the routes and services use (an RPC client, an HTTP transport, a timer): they
    /// start before the HTTP server and stop after it and after every service, just before
    /// the publisher.
    public func run(
        clients: [any Service] = [],
        services: [any Service] = [],
        routes: (Router<HeraldRequestContext>) -> Void = { _ in },
        opsRoutes: (Router<HeraldRequestContext>) -> Void = { _ in }
    ) async throws {
        let logger = logger
        let name = name
        func application(_ router: Router<HeraldRequestContext>, port: Int, role: String) -> some Service {
            Application(
                router: router,
                configuration: ApplicationConfiguration(address: .hostname(environment.httpHost, port: port), serverName: name),
                onServerRunning: { channel in
                    logger.info("listening", metadata: ["service": "\(name)", "role": "\(role)", "port": "\(channel.localAddress?.port ?? 0)"])
                },
                logger: logger)
        }
        let router = Router(context: HeraldRequestContext.self)
        routes(router)
        var servers: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let opsPort {
            // Health and metrics apart from the public API, which answers 404 for them.
            let ops = Router(context: HeraldRequestContext.self)
            HealthServer.addRoutes(to: ops, service: name, readiness: readiness)
            opsRoutes(ops)
            servers.append(.init(service: application(ops, port: opsPort, role: "ops"), serviceName: "ops"))
        } else {
            HealthServer.addRoutes(to: router, service: name, readiness: readiness)
            opsRoutes(router)
        }
        servers.append(.init(service: application(router, port: environment.httpPort, role: "http"), serviceName: "http"))
        var all: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let tracer { all.append(.init(service: tracer, serviceName: "tracing")) }
        if let publisher {
            all.append(.init(service: PublisherService(publisher: publisher, timeout: environment.shutdownTimeout), serviceName: "publisher"))
        }
        all.append(contentsOf: clients.map { .init(service: $0) })
        all.append(contentsOf: servers)
        all.append(contentsOf: services.map { .init(service: $0) })
        all.append(inPlaceRestart.watcher)
        var configuration = ServiceGroupConfiguration(
            services: all, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = environment.shutdownTimeout + .seconds(5)
        logger.info("starting", metadata: [
            "amqp": "\(environment.amqpURL)", "httpPort": "\(environment.httpPort)", "opsPort": "\(opsPort.map(String.init) ?? "-")",
        ])
        try await ServiceGroup(configuration: configuration).run()
        logger.info("stopped")
    }

    /// The whole life of an executable: builds the runtime, lets `setUp` create the
    /// service's own parts, runs until a shutdown signal and exits: 0 after a graceful
    /// shutdown, 2 for a configuration error, 1 for any other failure. After a graceful
    /// shutdown for `inPlaceRestart`, it starts again in place instead of exiting.
    public static func main(
        name: String, defaultPort: Int, defaultOpsPort: Int? = nil, usesBroker: Bool = true,
        topology: AMQPTopology = AMQPTopology(), deadLetterExchange: String = "stage.dead-letters",
        setUp: (ServiceRuntime) async throws -> ServiceParts = { _ in ServiceParts() }
    ) async -> Never {
        do {
            let runtime = try ServiceRuntime(
                name: name, defaultPort: defaultPort, defaultOpsPort: defaultOpsPort, usesBroker: usesBroker,
                topology: topology, deadLetterExchange: deadLetterExchange)
            let parts = try await setUp(runtime)
            try await runtime.run(clients: parts.clients, services: parts.services, routes: parts.routes, opsRoutes: parts.opsRoutes)
            if let reason = runtime.inPlaceRestart.reason {
                runtime.logger.notice("starting again in place", metadata: ["reason": "\(reason)"])
                let error = runtime.inPlaceRestart.exec()
                FileHandle.standardError.write(Data("\(name): could not start again in place: \(error)\n".utf8))
                exit(1)
            }
            exit(0)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(name): configuration error: \(error)\n".utf8))
            exit(2)
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(1)
        }
    }
}

/// What an executable adds to its runtime: the clients its parts share, its services (stages,
/// command servers) and its HTTP routes. See `ServiceRuntime.run`.
public struct ServiceParts {
    public var clients: [any Service]
    public var services: [any Service]
    public var routes: (Router<HeraldRequestContext>) -> Void
    /// Routes served with health and metrics on the ops port (the gateway's console).
    public var opsRoutes: (Router<HeraldRequestContext>) -> Void

    public init(
        clients: [any Service] = [], services: [any Service] = [], routes: @escaping (Router<HeraldRequestContext>) -> Void = { _ in },
        opsRoutes: @escaping (Router<HeraldRequestContext>) -> Void = { _ in }
    ) {
        self.clients = clients
        self.services = services
        self.routes = routes
        self.opsRoutes = opsRoutes
    }
}

/// Keeps the publisher open until graceful shutdown, then waits for its last confirms.
struct PublisherService: Service {
    let publisher: Publisher
    let timeout: Duration

    func run() async throws {
        try? await gracefulShutdown()
        await publisher.close(timeout: timeout)
    }
}
