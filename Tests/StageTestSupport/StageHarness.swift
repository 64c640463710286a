import Foundation
import HeraldDomain
import HeraldSources
import HeraldModel
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import HeraldTestSupport

/// A service's stage on the real broker, between private queues: an input work queue (with
/// its dead-letter queue), output exchanges and queues bound to them, and a runtime whose
/// publisher declares it all, and the apps file of `HERALD_CONFIG` for the providers a test
/// gives (none by default: `.herald` for a stage that builds providers' payloads). Light: it
/// links no provider, sandbox or service, so a stateful service's tests build without them.
/// Names are unique per harness, so tests run side by side.
public struct StageHarness: Sendable {
    public let work: WorkTopology
    public let exchanges: [String: ExchangeSpec]
    public let queues: [String: QueueSpec]
    public let runtime: ServiceRuntime
    /// The apps file of the environment's `HERALD_CONFIG` (none: no apps) and the providers given.
    public let herald: HeraldConfiguration
    /// Everything the harness declares.
    public let topology: AMQPTopology
    private let environment: [String: String]
    private let label: String
    private let providers: ProviderRegistry

    /// `exchanges`: role → kind; `queues`: role → (exchange role, binding key); `extra`: more
    /// topology, e.g. delay queues that dead-letter into the input.
    public init(
        _ label: String, exchanges: [String: ExchangeSpec.Kind], queues: [String: (exchange: String, key: String)],
        extra: (WorkTopology, [String: ExchangeSpec]) -> AMQPTopology = { _, _ in AMQPTopology() },
        environment: [String: String] = [:], providers: ProviderRegistry = ProviderRegistry()
    ) throws {
        self.label = label
        self.providers = providers
        let id = UUID().uuidString.prefix(8)
        work = TestBroker.workTopology(label)
        let exchangeSpecs = exchanges.reduce(into: [String: ExchangeSpec]()) { $0[$1.key] = ExchangeSpec("test.\(label).\($1.key).\(id)", kind: $1.value) }
        let queueSpecs = queues.reduce(into: [String: QueueSpec]()) { $0[$1.key] = QueueSpec("test.\(label).\($1.key).\(id)") }
        self.exchanges = exchangeSpecs
        self.queues = queueSpecs
        let topology = work.topology.merged(with: AMQPTopology(
            exchanges: Array(exchangeSpecs.values), queues: Array(queueSpecs.values),
            bindings: queues.map { BindingSpec(exchange: exchangeSpecs[$0.value.exchange]!.name, queue: queueSpecs[$0.key]!.name, routingKey: $0.value.key) }))
            .merged(with: extra(work, exchangeSpecs))
        self.topology = topology
        self.environment = ["HERALD_AMQP_URL": TestBroker.urlString, "HERALD_LOG_LEVEL": ProcessInfo.processInfo.environment["HERALD_TEST_LOG_LEVEL"] ?? "critical", "HERALD_SHUTDOWN_TIMEOUT": "10"]
            .merging(environment) { $1 }
        runtime = try HeraldService.runtime(name: "test-\(label)-\(id)", defaultPort: 0, environment: self.environment, providers: providers, topology: topology)
        herald = try HeraldConfiguration(environment: runtime.environment, providers: providers, sources: .herald)
    }

    /// Another runtime on the same topology, as a restarted service would have.
    public func newRuntime() throws -> ServiceRuntime {
        try HeraldService.runtime(name: "test-\(label)-\(UUID().uuidString.prefix(8))", defaultPort: 0, environment: environment, providers: providers, topology: topology)
    }

    /// Deletes every queue the harness declared.
    public func cleanUp() async {
        for queue in topology.queues { try? await TestBroker.admin.delete(queue: queue.name) }
    }

    /// Publishes `contract` to the input queue.
    public func publish<C: Contract>(_ contract: C) async throws {
        try await runtime.requirePublisher.publish(OutgoingMessage(contract: contract, exchange: work.exchange.name, routingKey: "work"))
    }

    /// Runs `services` while `body` runs with collectors on `collecting` (queue roles, or
    /// `dead` for the input's dead letters), then shuts them down gracefully and cleans up.
    public func run(_ services: [any Service], collecting: [String], cleanUp: Bool = true, _ body: ([Collector]) async throws -> Void) async throws {
        let names = collecting.map { $0 == "dead" ? work.deadQueue.name : queues[$0]!.name }
        let collectors = names.map { Collector(runtime.connection("collect:\($0)"), queue: $0) }
        let group = ServiceGroup(services: services, logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var failure: (any Error)?
        do { try await body(collectors) } catch { failure = error }
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        for collector in collectors { await collector.stop() }
        await runtime.requirePublisher.close()
        if cleanUp { await self.cleanUp() }
        if let failure { throw failure }
    }
}
