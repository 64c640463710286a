import Foundation
import HeraldModel
import Logging
import Messaging

/// The RabbitMQ node the integration tests talk to: `HERALD_TEST_AMQP_URL`, which
/// `scripts/test` sets to a node of its own (with its TLS port, management API, Prometheus
/// endpoint and node name beside it). A test that uses it declares `.needs(.broker)`.
public enum TestBroker {
    static let environment = ProcessInfo.processInfo.environment

    /// Whether `HERALD_TEST_AMQP_URL` is set; without it no broker is assumed.
    public static var isConfigured: Bool { environment["HERALD_TEST_AMQP_URL"].map { !$0.isEmpty } ?? false }

    public static let urlString = environment["HERALD_TEST_AMQP_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "amqp://guest:guest@127.0.0.1:5672/"
    public static let url: AMQPURL = try! AMQPURL(urlString)

    /// The node's AMQP-over-TLS port (`HERALD_TEST_AMQPS_PORT`, default 5671).
    public static let tlsPort = environment["HERALD_TEST_AMQPS_PORT"].flatMap { Int($0) } ?? 5671

    /// The node's management API (`HERALD_TEST_MANAGEMENT_URL`, default port 15672 of its host).
    public static let managementURL = environment["HERALD_TEST_MANAGEMENT_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://\(url.host):15672"

    /// The node's Prometheus endpoint, per object (`HERALD_TEST_RABBITMQ_METRICS_URL`).
    public static let metricsURL = environment["HERALD_TEST_RABBITMQ_METRICS_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://\(url.host):15692/metrics/per-object"

    /// The node's name, for rabbitmqctl (`HERALD_TEST_RABBITMQ_NODE`; rabbitmqctl's default
    /// node when unset).
    public static let node = environment["HERALD_TEST_RABBITMQ_NODE"].flatMap { $0.isEmpty ? nil : $0 }

    public static var isReachable: Bool { tcpAnswers(host: url.host, port: url.port) }

    public static let admin = BrokerAdmin(url: url)

    /// How long a test waits for an RPC reply: generous, because the whole suite runs in
    /// parallel on two cores and a reply can be late without being lost. A test that means
    /// to see a timeout names its own.
    public static let rpcTimeout: Duration = .seconds(30)

    /// An RPC client that is connected (its reply consumer in place) before the test calls it,
    /// so that no call's time goes to the connection's set-up.
    public static func connectedRPCClient(_ name: String) async throws -> RPCClient {
        let client = RPCClient(configuration: configuration(name))
        guard await client.waitUntilConnected(timeout: .seconds(60)) else { throw TestFailure("the RPC client \(name) did not connect") }
        return client
    }

    public static var logger: Logger {
        var logger = Logger(label: "herald.tests")
        logger.logLevel = ProcessInfo.processInfo.environment["HERALD_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }

    /// A configuration with a unique connection name (so a test can close just that connection).
    public static func configuration(_ name: String, topology: AMQPTopology = AMQPTopology()) -> ConnectionConfiguration {
        ConnectionConfiguration(
            url: url, name: "test-\(name)-\(UUID().uuidString.prefix(8))", heartbeat: .seconds(5),
            topology: topology,
            reconnect: Backoff(initial: .milliseconds(50), maximum: .seconds(1)), logger: logger)
    }

    /// A fresh quorum work queue (dead-lettering to a fresh fanout exchange and its own
    /// dead-letter queue), bound to a fresh direct exchange with routing key `work`.
    public static func workTopology(_ label: String, deliveryLimit: Int64? = nil, kind: QueueSpec.Kind = .quorum) -> WorkTopology {
        let id = "\(label).\(UUID().uuidString.prefix(8))"
        return WorkTopology(
            exchange: ExchangeSpec("test.x.\(id)", kind: .direct),
            queue: QueueSpec("test.q.\(id)", kind: kind, deadLetterExchange: "test.dlx.\(id)", deliveryLimit: deliveryLimit),
            deadExchange: ExchangeSpec("test.dlx.\(id)", kind: .fanout),
            deadQueue: QueueSpec("test.dead.\(id)"))
    }

    /// Runs `rabbitmqctl` with `arguments` and returns its output. The process is awaited
    /// without blocking a thread of the concurrency pool.
    @discardableResult
    public static func rabbitmqctl(_ arguments: String...) async throws -> String {
        let (status, text) = try await runCommand("rabbitmqctl", ["-q"] + (node.map { ["-n", $0] } ?? []) + arguments)
        guard status == 0 else {
            throw TestFailure("rabbitmqctl \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// Suspends (or resumes) the process of the classic queue `name` in the test vhost: the
    /// broker then accepts publishes to it but withholds their confirms, as a broker that
    /// lost track of them does.
    public static func suspendQueue(_ name: String, resume: Bool = false) async throws {
        let vhost = url.virtualHost.replacingOccurrences(of: "\"", with: "")
        try await rabbitmqctl("eval", """
            {ok, Q} = rabbit_amqqueue:lookup(rabbit_misc:r(<<"\(vhost)">>, queue, <<"\(name)">>)), \
            sys:\(resume ? "resume" : "suspend")(amqqueue:get_pid(Q)).
            """)
    }

    /// Closes, on the broker side, every connection whose name is `name`.
    public static func closeConnection(named name: String) async throws {
        var closed = 0
        // rabbitmqctl takes seconds to start, more when the suite loads both cores.
        let deadline = ContinuousClock.now + .seconds(60)
        while closed == 0 {
            let listing = try await rabbitmqctl("list_connections", "pid", "client_properties")
            for line in listing.split(separator: "\n") where line.contains("\"\(name)\"") {
                guard let pid = line.split(separator: "\t").first else { continue }
                try await rabbitmqctl("close_connection", String(pid), "test closes the connection")
                closed += 1
            }
            if closed == 0 {
                if ContinuousClock.now > deadline { throw TestFailure("no connection named \(name)") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A work queue with its exchange and dead-letter path.
public struct WorkTopology: Sendable {
    public var exchange: ExchangeSpec
    public var queue: QueueSpec
    public var deadExchange: ExchangeSpec
    public var deadQueue: QueueSpec

    public var topology: AMQPTopology {
        AMQPTopology(
            exchanges: [exchange, deadExchange], queues: [queue, deadQueue],
            bindings: [
                BindingSpec(exchange: exchange.name, queue: queue.name, routingKey: "work"),
                BindingSpec(exchange: deadExchange.name, queue: deadQueue.name, routingKey: ""),
            ])
    }

    public func message(_ text: String, id: String? = nil) -> OutgoingMessage {
        OutgoingMessage(
            exchange: exchange.name, routingKey: "work", body: Data(text.utf8),
            properties: MessageProperties(contentType: "text/plain", messageId: id ?? text))
    }

    public func cleanUp() async {
        for queue in [queue.name, deadQueue.name] {
            try? await TestBroker.admin.delete(queue: queue)
        }
    }
}

/// Collects what a consumer receives, for waiting on conditions with a deadline.
public actor Inbox {
    public init() {}

    public private(set) var messages: [ReceivedMessage] = []

    /// Adds a message; a pack (`MessagePack`) adds each of its elements, with the element's
    /// own message and correlation ids, as the stages downstream see them.
    public func add(_ message: ReceivedMessage) {
        guard MessagePack.isPack(message.properties), let elements = try? message.unpacked(ids: { Self.ids(type: message.properties.type, body: $0) }) else {
            messages.append(message)
            return
        }
        messages += elements
    }

    /// A contract element's ids, for the contracts Herald's stages emit.
    static func ids(type: String?, body: Data) -> (messageId: String, correlationId: String)? {
        func ids<C: Contract>(_ contract: C.Type) -> (String, String)? {
            (try? HeraldJSON.decode(C.self, from: body)).map { ($0.messageId, $0.correlationId) }
        }
        switch type {
        case NotificationEvent.contractName: return ids(NotificationEvent.self)
        case Delivery.contractName: return ids(Delivery.self)
        case DispatchRequest.contractName: return ids(DispatchRequest.self)
        case Outcome.contractName: return ids(Outcome.self)
        case TokenRevoked.contractName: return ids(TokenRevoked.self)
        default: return nil
        }
    }

    public var ids: [String] { messages.compactMap(\.properties.messageId) }
    public var count: Int { messages.count }

    /// Waits until `condition` holds over the inbox, or fails after `timeout`. The default is
    /// long: when the whole suite starts at once on two cores, a broker round trip can take
    /// tens of seconds, and a passing test never waits it out.
    public func waitUntil(timeout: Duration = .seconds(60), _ what: String, _ condition: @Sendable ([ReceivedMessage]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(messages) {
            if ContinuousClock.now > deadline { throw TestFailure("timed out waiting for \(what) (have \(messages.count) messages)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Waits until `condition` is true, or fails after `timeout` (long by default, as above).
public func eventually(timeout: Duration = .seconds(60), _ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        if ContinuousClock.now > deadline { throw TestFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A value that arrives later, from a task the test does not await directly: the test waits
/// for it with a deadline, so an operation that never ends fails the test instead of hanging it.
public actor Completion<Value: Sendable> {
    private var value: Value?

    public init() {}

    public func set(_ value: Value) { self.value = value }

    public var isSet: Bool { value != nil }

    /// The value, once set; fails after `timeout` saying what did not happen.
    public func value(within timeout: Duration, _ what: String) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while value == nil {
            if ContinuousClock.now > deadline { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return value!
    }
}

/// Runs `body`, failing after `timeout` with what it was waiting for if it has not finished:
/// for a wait with no deadline of its own (a publish waiting for its confirm from a broker
/// that never answers, a task's value). The body is then cancelled and left to end by itself.
public func within<T: Sendable>(_ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let completion = Completion<Result<T, any Error>>()
    let task = Task {
        do { await completion.set(.success(try await body())) } catch { await completion.set(.failure(error)) }
    }
    do {
        return try await completion.value(within: timeout, "\(what) (\(timeout))").get()
    } catch let failure as TestFailure {
        task.cancel()
        throw failure
    }
}
