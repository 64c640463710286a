import Foundation
import HeraldModel
import Logging
import Messaging
import Metrics
import ServiceLifecycle

/// The pipeline stage every middle service is: consume one queue, decode contract `Input`,
/// call the handler, publish its emissions with confirms, and only then acknowledge the
/// input. So a crash at any point loses nothing: an input is either acknowledged after its
/// outputs are safely in the broker, or redelivered.
///
/// - An input that cannot be decoded, or that the handler rejects (`StageError.rejected`),
///   is published to the queue's dead-letter exchange with an `x-herald-reason` header, and
///   then acknowledged.
/// - Any other failure is retried: the input goes back to the queue after a short backoff,
///   up to `maxAttempts` deliveries; then it is dead-lettered with the last error.
/// - On graceful shutdown the stage stops consuming, finishes what it holds, and returns.
public struct Stage<Input: Contract>: Service {
    public typealias Handler = @Sendable (Input) async throws -> [Emission]
    /// Runs once an input's emissions are confirmed, before its ack: for state that may only
    /// change when the outputs are safe (e.g. marking an event processed). A failure here
    /// retries the input like a failed handler; its outputs are then published again.
    public typealias Committed = @Sendable (Input) async throws -> Void

    /// Test seams: run between publishing the outputs and acknowledging the input.
    public struct Hooks: Sendable {
        public var afterPublish: (@Sendable (ReceivedMessage) async -> Void)?
        public init(afterPublish: (@Sendable (ReceivedMessage) async -> Void)? = nil) {
            self.afterPublish = afterPublish
        }
    }

    public let name: String
    public let queue: QueueSpec
    public let prefetch: UInt16
    /// Deliveries of one input (first included) before a transient failure is final.
    public let maxAttempts: Int
    private let runtime: ServiceRuntime
    private let handler: Handler
    private let committed: Committed?
    private let hooks: Hooks
    private let probe = ReadinessProbe()

    public init(
        _ name: String? = nil, consuming queue: QueueSpec, prefetch: UInt16 = 64, maxAttempts: Int = 5,
        runtime: ServiceRuntime, hooks: Hooks = Hooks(), committed: Committed? = nil, handler: @escaping Handler
    ) {
        self.committed = committed
        self.name = name ?? queue.name
        self.queue = queue
        self.prefetch = prefetch
        self.maxAttempts = max(1, maxAttempts)
        self.runtime = runtime
        self.hooks = hooks
        self.handler = handler
        // Counted from now: the service is not ready until this stage consumes.
        runtime.readiness.register("consumer:\(queue.name)") { [probe] in probe.holds }
    }

    /// The name of this stage's consumer connection on the broker.
    public var connectionName: String { runtime.connection("stage:\(name)").name }

    public func run() async throws {
        let consumer = Consumer(configuration: runtime.connection("stage:\(name)"), queue: queue.name, prefetch: prefetch)
        probe.attach { consumer.isConnected }
        defer { runtime.readiness.remove("consumer:\(queue.name)") }
        let processor = Processor(
            stage: name, queue: queue, maxAttempts: maxAttempts, publisher: runtime.requirePublisher,
            handler: handler, committed: committed, hooks: hooks, logger: runtime.logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await message in consumer {
                    group.addTask { await processor.process(message) }
                }
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
        runtime.logger.info("stage stopped", metadata: ["stage": "\(name)"])
    }

    /// The per-message work, shared by the concurrent tasks of one stage.
    private struct Processor: Sendable {
        let stage: String
        let queue: QueueSpec
        let maxAttempts: Int
        let publisher: Publisher
        let handler: Handler
        let committed: Committed?
        let hooks: Hooks
        let logger: Logger
        let processed: Counter
        let deadLettered: Counter
        let retried: Counter
        let duration: Metrics.Timer

        init(stage: String, queue: QueueSpec, maxAttempts: Int, publisher: Publisher, handler: @escaping Handler, committed: Committed?, hooks: Hooks, logger: Logger) {
            self.committed = committed
            self.stage = stage
            self.queue = queue
            self.maxAttempts = maxAttempts
            self.publisher = publisher
            self.handler = handler
            self.hooks = hooks
            self.logger = logger
            processed = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "ok")])
            deadLettered = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "dead_lettered")])
            retried = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "retried")])
            duration = Metrics.Timer(label: "herald_stage_duration_seconds", dimensions: [("stage", stage)], preferredDisplayUnit: .seconds)
        }

        func process(_ message: ReceivedMessage) async {
            let started = ContinuousClock.now
            defer { duration.record(duration: ContinuousClock.now - started) }
            let input: Input
            do {
                input = try message.decode(Input.self)
            } catch {
                await deadLetter(message, reason: "undecodable: \(error)")
                return
            }
            do {
                let emissions = try await handler(input)
                try await publisher.publish(contentsOf: emissions.map(\.message))
                if let afterPublish = hooks.afterPublish { await afterPublish(message) }
                if let committed { try await committed(input) }
                message.ack()
                processed.increment()
            } catch let error as StageError where error.reason == .rejected {
                await deadLetter(message, reason: "rejected: \(error.message)")
            } catch {
                await retry(message, after: error)
            }
        }

        /// Requeues after a short backoff, or dead-letters once the attempts are spent.
        private func retry(_ message: ReceivedMessage, after error: any Error) async {
            let attempt = message.deliveryCount + 1
            if attempt >= maxAttempts {
                await deadLetter(message, reason: "failed \(attempt) times, last: \(error)")
                return
            }
            logger.warning("stage input failed; requeueing", metadata: [
                "stage": "\(stage)", "messageId": "\(message.properties.messageId ?? "-")",
                "attempt": "\(attempt)", "error": "\(error)",
            ])
            retried.increment()
            let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5)).delay(attempt: attempt - 1)
            try? await Task.sleep(for: backoff)
            message.nack(requeue: true)
        }

        /// Publishes the input, untouched but for reason headers, to the queue's dead-letter
        /// exchange, then acknowledges it. If even that fails, the broker dead-letters it.
        private func deadLetter(_ message: ReceivedMessage, reason: String) async {
            logger.error("stage input dead-lettered", metadata: [
                "stage": "\(stage)", "messageId": "\(message.properties.messageId ?? "-")", "reason": "\(reason)",
            ])
            var properties = message.properties
            properties.headers["x-herald-reason"] = .string(reason)
            properties.headers["x-herald-stage"] = .string(stage)
            properties.headers["x-herald-queue"] = .string(queue.name)
            properties.headers["x-herald-dead-lettered-at"] = .string(HeraldJSON.formatTimestamp(Date()))
            let letter = OutgoingMessage(
                exchange: queue.deadLetterExchange ?? HeraldTopology.Exchange.dead.name,
                routingKey: message.routingKey, body: message.body, properties: properties)
            do {
                try await publisher.publish(letter)
                message.ack()
            } catch {
                logger.error("dead-letter publish failed; rejecting to the broker's dead-letter exchange", metadata: ["error": "\(error)"])
                message.nack(requeue: false)
            }
            deadLettered.increment()
        }
    }
}
