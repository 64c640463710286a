import Foundation
import HeraldModel
import Logging
import Messaging
import Metrics
import ServiceKit
import ServiceLifecycle

/// Reports every delivery that was dead-lettered, so that an accepted event ends with an
/// outcome even when no stage got to say what became of it: a dispatch request no dispatcher
/// took before its TTL (the broker expires it: outcome `expired`), a delivery a stage gave
/// up on, a full or over-redelivered queue (`failed`, with the reason). An event that never
/// reached fan-out is reported under the delivery id `<eventId>:event`.
///
/// It consumes its own copy of the dead letters (`registration.dead-letters`; operators keep
/// theirs in `dead-letters`), publishes one outcome per element with confirms, then
/// acknowledges. What carries no delivery (outcomes, revocations, unreadable bodies) is
/// acknowledged without a report: it stays in the operators' queue.
public struct DeadLetterReporter: Service {
    public let queue: QueueSpec
    public let outcomes: ExchangeSpec
    private let runtime: ServiceRuntime
    private let probe = ReadinessProbe()

    public init(
        consuming queue: QueueSpec = HeraldTopology.Queue.registrationDeadLetters,
        outcomes: ExchangeSpec = HeraldTopology.Exchange.outcomes, runtime: ServiceRuntime
    ) {
        self.queue = queue
        self.outcomes = outcomes
        self.runtime = runtime
        runtime.readiness.register("consumer:\(queue.name)") { [probe] in probe.holds }
    }

    public func run() async throws {
        let consumer = Consumer(configuration: runtime.connection("dead-letters"), queue: queue.name, prefetch: 32)
        probe.attach { consumer.isConnected }
        defer { runtime.readiness.remove("consumer:\(queue.name)") }
        let publisher = runtime.requirePublisher
        let reported = Counter(label: "herald_dead_letters_reported_total")
        let unreported = Counter(label: "herald_dead_letters_unreported_total")
        let backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(10))
        await withGracefulShutdownHandler {
            for await message in consumer {
                let found = Self.outcomes(for: message, now: Date())
                guard !found.isEmpty else {
                    unreported.increment()
                    message.ack()
                    continue
                }
                let failure = await backoff.retrying(attempts: 5, failed: { attempt, error in
                    runtime.logger.warning("reporting a dead letter failed", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
                }) {
                    try await publisher.publish(contentsOf: found.map {
                        try OutgoingMessage(contract: $0, exchange: outcomes.name, routingKey: $0.routingKey)
                    })
                }
                guard failure == nil else {
                    // Given back to the broker, which offers it again.
                    message.nack(requeue: true)
                    continue
                }
                message.ack()
                reported.increment(by: found.count)
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
    }

    /// The outcomes that report the deliveries in `message`, or none when it carries none.
    public static func outcomes(for message: ReceivedMessage, now: Date) -> [Outcome] {
        let (status, reason) = verdict(message)
        switch message.properties.type {
        case ContractName.dispatch?:
            guard let requests = try? message.decodeAll(DispatchRequest.self) else { return [] }
            return requests.map { Outcome(request: $0, status: status, reason: reason, at: now) }
        case ContractName.delivery?:
            guard let deliveries = try? message.decodeAll(Delivery.self) else { return [] }
            return deliveries.map { Outcome(delivery: $0, status: status, reason: reason, at: now) }
        case ContractName.event?:
            guard let events = try? message.decodeAll(NotificationEvent.self) else { return [] }
            return events.map {
                Outcome(deliveryId: "\($0.id):event", eventId: $0.id, app: $0.app, status: status, reason: reason, at: now)
            }
        default:
            return []
        }
    }

    /// What became of a dead letter, from the stage's reason headers or the broker's `x-death`.
    static func verdict(_ message: ReceivedMessage) -> (OutcomeStatus, String) {
        let headers = message.properties.headers
        if let reason = headers["x-herald-reason"]?.stringValue {
            let stage = headers["x-herald-stage"]?.stringValue ?? "a stage"
            return (.failed, "dead-lettered by \(stage): \(reason)")
        }
        guard let death = message.deaths.first else { return (.failed, "dead-lettered") }
        let queue = death["queue"]?.stringValue ?? "its queue"
        switch death["reason"]?.stringValue {
        case "expired"?: return (.expired, "nothing consumed it from \(queue) before it expired")
        case "maxlen"?: return (.failed, "\(queue) was full")
        case "delivery_limit"?: return (.failed, "delivered too many times from \(queue) without being handled")
        case "rejected"?: return (.failed, "rejected by the consumer of \(queue)")
        case let other?: return (.failed, "dead-lettered from \(queue) (\(other))")
        case nil: return (.failed, "dead-lettered from \(queue)")
        }
    }
}
