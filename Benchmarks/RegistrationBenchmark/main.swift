// herald-registration-bench: a benchmark, not a test.
//
//   herald-registration-bench fanout [users=10000] [rounds=3]
//       one event to `users` users with two devices each, resolved by the registration stage
//       with the broker (batched queries, confirmed publishes); reports deliveries/s from
//       starting the stage to the last delivery.
//   herald-registration-bench lists [events=100000] [devices=100000] [sqlite|postgres] [keep: a data directory or database URL]
//       how long a page of GET /events and GET /devices takes from a store that holds that
//       many (medians of repeated pages, first and half-way down, filtered), and the space
//       the events take (PostgreSQL: HERALD_DATABASE_URL, a schema of its own, dropped after).
//   herald-registration-bench register [count=20000] [concurrency=64]
//       device registrations/s through the RPC command server with the broker (the
//       gateway's path, without HTTP).
import BenchmarkSupport
import Foundation
import HeraldDomain
import HeraldModel
import Messaging
import Registration
import ServiceKit
import ServiceLifecycle
import Logging

let arguments = CommandLine.arguments.dropFirst()
let mode = arguments.first ?? "fanout"
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-registration-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }
let store = try SQLiteRegistrationStore(directory: directory)

switch mode {
case "fanout":
    let users = Int(arguments.dropFirst().first ?? "10000") ?? 10_000
    let rounds = Int(arguments.dropFirst(2).first ?? "3") ?? 3
    for n in 0..<users {
        for suffix in ["a", "b"] {
            try await store.register(app: "bench", DeviceRegistration(deviceId: "d\(n)-\(suffix)", platform: .fcm, token: "t\(n)-\(suffix)", os: .android, userId: "u\(n)", locale: "en"))
        }
    }
    // The stage runs and consumes before the clock starts: the figure is one event's
    // resolution, from publishing it to the last delivery reaching the output queue.
    let url = ProcessInfo.processInfo.environment["HERALD_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/"
    let id = UUID().uuidString.prefix(8)
    let routes = StageRoutes(
        input: QueueSpec("bench.registration.\(id).in"), output: ExchangeSpec("bench.registration.\(id).out", kind: .topic),
        outcomes: ExchangeSpec("bench.registration.\(id).outcomes", kind: .topic))
    let output = QueueSpec("bench.registration.\(id).out")
    let runtime = try ServiceRuntime(
        name: "herald-registration-bench", defaultPort: 0, environment: ["HERALD_AMQP_URL": url, "HERALD_LOG_LEVEL": "error"],
        topology: AMQPTopology(exchanges: [routes.output, routes.outcomes], queues: [routes.input, output],
                               bindings: [BindingSpec(exchange: routes.output.name, queue: output.name, routingKey: "resolved")]))
    let group = ServiceGroup(services: [RegistrationStages.resolving(runtime: runtime, apps: AppsConfiguration(), store: store, routes: routes)], logger: Logger(label: "bench"))
    let running = Task { try await group.run() }
    while !runtime.readiness.isReady { try await Task.sleep(for: .milliseconds(20)) }
    let collected = Consumer(configuration: runtime.connection("collect"), queue: output.name, prefetch: 1000)
    // Off the main actor, so that taking each delivery does not hop to it.
    let rates = try await Task.detached { () async throws -> [Double] in
    var iterator = collected.makeAsyncIterator()
    var rates: [Double] = []
    for round in 0..<rounds {
        let event = NotificationEvent(
            id: "fanout-\(round)-\(UUID().uuidString)", app: "bench", source: .upstra, kind: "message.created", occurredAt: Date(),
            audience: .users((0..<users).map { "u\($0)" }), context: ["channelId": "c1"], data: ["channelId": "c1", "messageId": "m1"],
            alert: .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Lunch?"]))
        let clock = ContinuousClock()
        let started = clock.now
        try await runtime.requirePublisher.publish(OutgoingMessage(contract: event, exchange: "", routingKey: routes.input.name))
        var received = 0
        while received < users * 2, let message = await iterator.next() {
            message.ack()
            received += 1
        }
        let seconds = StageThroughput.seconds(clock.now - started)
        let rate = Double(users * 2) / seconds
        rates.append(rate)
        print(#"{"measure":"fanout_deliveries_per_s","deliveries":\#(users * 2),"seconds":\#(String(format: "%.2f", seconds)),"perSecond":\#(Int(rate))}"#)
    }
    return rates
    }.value
    collected.stopConsuming()
    await collected.close(timeout: .seconds(5))
    await group.triggerGracefulShutdown()
    _ = try? await running.value
    let admin = BrokerAdmin(url: try AMQPURL(url))
    try? await admin.delete(queue: routes.input.name)
    try? await admin.delete(queue: output.name)
    await runtime.requirePublisher.close()
    OperationRate.report("fanout_deliveries_per_s", rates)

case "lists":
    try await ListPages.run(
        events: Int(arguments.dropFirst().first ?? "100000") ?? 100_000, devices: Int(arguments.dropFirst(2).first ?? "100000") ?? 100_000,
        backend: arguments.dropFirst(3).first ?? "sqlite", keep: arguments.dropFirst(4).first)

case "register":
    let count = Int(arguments.dropFirst().first ?? "20000") ?? 20_000
    let concurrency = Int(arguments.dropFirst(2).first ?? "64") ?? 64
    let url = ProcessInfo.processInfo.environment["HERALD_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/"
    let queue = QueueSpec("bench.registration.commands.\(UUID().uuidString.prefix(8))", kind: .classic, durable: false, autoDelete: true)
    let runtime = try ServiceRuntime(name: "herald-registration-bench", defaultPort: 0, environment: ["HERALD_AMQP_URL": url, "HERALD_LOG_LEVEL": "error"], topology: AMQPTopology(queues: [queue]))
    let server = CommandServer(queue: queue, prefetch: 128, runtime: runtime, handler: RegistrationCommands(store: store).handle)
    let group = ServiceGroup(services: [server], logger: Logger(label: "bench"))
    let running = Task { try await group.run() }
    while !runtime.readiness.isReady { try await Task.sleep(for: .milliseconds(20)) }
    let client = RPCClient(configuration: ConnectionConfiguration(url: try AMQPURL(url), name: "bench-client"))
    let clock = ContinuousClock()
    let started = clock.now
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for worker in 0..<concurrency {
            tasks.addTask {
                for n in stride(from: worker, to: count, by: concurrency) {
                    let registration = DeviceRegistration(deviceId: "r\(n)", platform: .fcm, token: "rt\(n)", os: .android, userId: "u\(n % 1000)", locale: "en")
                    _ = try await client.call(RegistrationCommand.registerDevice(app: "bench", registration: registration), type: RegistrationCommand.contractName, queue: queue.name, expecting: RegistrationReply.self)
                }
            }
        }
        try await tasks.waitForAll()
    }
    let seconds = StageThroughput.seconds(clock.now - started)
    print(#"{"measure":"rpc_registrations_per_s","registrations":\#(count),"concurrency":\#(concurrency),"seconds":\#(String(format: "%.2f", seconds)),"perSecond":\#(Int(Double(count) / seconds))}"#)
    await client.close()
    await group.triggerGracefulShutdown()
    _ = try? await running.value
    await runtime.requirePublisher.close()

default:
    FileHandle.standardError.write(Data("usage: herald-registration-bench fanout [users] [rounds] | lists [events] [devices] [sqlite|postgres] [keep] | register [count] [concurrency]\n".utf8))
    exit(64)
}
