import Foundation
import HeraldDomain
import HeraldModel
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Measures a pipeline stage with the broker: queues `count` inputs on a fresh queue first,
/// then runs the stage and counts what reaches a fresh output queue (`outputs` messages,
/// by default one per input), and returns the time
/// from starting the stage to the last output. Everything it declares, it deletes.
public enum StageThroughput {
    public static func measure(
        label: String, count: Int, outputs: Int? = nil, outputKey: String,
        input: (Int) throws -> any Contract,
        stage: (ServiceRuntime, StageRoutes) -> any Service
    ) async throws -> Duration {
        let url = ProcessInfo.processInfo.environment["HERALD_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/"
        let id = UUID().uuidString.prefix(8)
        let routes = StageRoutes(
            input: QueueSpec("bench.\(label).\(id).in"),
            output: ExchangeSpec("bench.\(label).\(id).out", kind: .topic),
            outcomes: ExchangeSpec("bench.\(label).\(id).outcomes", kind: .topic))
        let outputQueue = QueueSpec("bench.\(label).\(id).out")
        let topology = AMQPTopology(
            exchanges: [routes.output, routes.outcomes], queues: [routes.input, outputQueue],
            bindings: [BindingSpec(exchange: routes.output.name, queue: outputQueue.name, routingKey: outputKey)])
        let runtime = try ServiceRuntime(
            name: "herald-\(label)-bench", defaultPort: 0,
            environment: ["HERALD_AMQP_URL": url, "HERALD_LOG_LEVEL": "error"], topology: topology)
        let publisher = runtime.requirePublisher
        var batch: [OutgoingMessage] = []
        for n in 0..<count {
            batch.append(try OutgoingMessage(contract: input(n), exchange: "", routingKey: routes.input.name))
            if batch.count == 1000 {
                try await publisher.publish(contentsOf: batch)
                batch.removeAll()
            }
        }
        try await publisher.publish(contentsOf: batch)

        let collected = Consumer(configuration: runtime.connection("collect"), queue: outputQueue.name, prefetch: 1000)
        let group = ServiceGroup(services: [stage(runtime, routes)], logger: Logger(label: "bench"))
        let clock = ContinuousClock()
        let started = clock.now
        let running = Task { try await group.run() }
        var received = 0
        let expected = outputs ?? count
        for await message in collected {
            message.ack()
            received += 1
            if received == expected { break }
        }
        let elapsed = clock.now - started
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        collected.stopConsuming()
        await collected.close(timeout: .seconds(5))
        let admin = BrokerAdmin(url: try AMQPURL(url))
        try? await admin.delete(queue: routes.input.name)
        try? await admin.delete(queue: outputQueue.name)
        await publisher.close()
        return elapsed
    }

    /// Seconds as a Double.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
