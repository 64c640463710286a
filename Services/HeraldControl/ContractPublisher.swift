import Foundation
import Messaging

/// Publishes messages with confirms, in order, optionally paced: what `heraldctl publish` sends.
public struct ContractPublisher: Sendable {
    public var url: AMQPURL

    public init(url: AMQPURL) {
        self.url = url
    }

    /// Publishes every message (at most `rate` a second) and returns once the broker confirmed
    /// them all: how many, and in how many seconds. A message the broker refuses or cannot
    /// route (no queue bound to its routing key) fails the command, naming it.
    public func publish(
        _ messages: [OutgoingMessage], rate: Double?, progress: @escaping @Sendable (Int) -> Void
    ) async throws(ControlError) -> (count: Int, seconds: Double) {
        let publisher = try await ControlBroker.publisher(url: url, name: "heraldctl/publish")
        let clock = ContinuousClock()
        let start = clock.now
        let outcome: Result<Int, ControlError>
        do {
            outcome = .success(try await Self.publish(messages, rate: rate, with: publisher, clock: clock, start: start, progress: progress))
        } catch {
            outcome = .failure(error)
        }
        await publisher.close()
        let count = try outcome.get()
        let elapsed = clock.now - start
        return (count, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    private static func publish(
        _ messages: [OutgoingMessage], rate: Double?, with publisher: Publisher, clock: ContinuousClock,
        start: ContinuousClock.Instant, progress: @escaping @Sendable (Int) -> Void
    ) async throws(ControlError) -> Int {
        // Windows of messages whose confirms are awaited together: 500 unpaced; paced, a
        // hundredth of a second's worth, each sent when it is due, so the rate holds even
        // where one confirm takes longer than the gap between two messages.
        let window = rate.map { max(1, min(500, Int(($0 / 100).rounded(.up)))) } ?? 500
        var done = 0
        while done < messages.count {
            let batch = Array(messages[done..<min(messages.count, done + window)])
            if let rate {
                let due = start + .seconds(Double(done) / rate)
                if due > clock.now { try? await Task.sleep(until: due, clock: clock) }
            }
            do {
                try await publisher.publish(contentsOf: batch)
            } catch {
                let first = batch[0]
                throw ControlError(.failed, "publishing to exchange \"\(first.exchange)\" with routing key \"\(first.routingKey)\" failed: \(error)")
            }
            done += batch.count
            progress(done)
        }
        return done
    }
}
