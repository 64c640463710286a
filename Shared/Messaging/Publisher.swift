import Foundation
import Synchronization

/// Publishes with publisher confirms on its own connection. `publish` returns once the
/// broker confirmed the message (for a persistent message to a quorum queue: once it is
/// replicated and on disk). At most `window` messages await their confirm at once. A
/// message whose confirm was lost with the connection is published again after the
/// reconnect, so delivery is at least once. A message the broker refuses (`basic.nack`,
/// e.g. while a quorum queue elects its leader) is published again after a backoff (100 ms,
/// doubling to 2 s), up to `nackAttempts` times in all, before its publish fails. After every
/// fifth refusal in a row the publisher moves to a fresh channel, since RabbitMQ 3.10 can
/// keep refusing on a channel that was refused once.
public final class Publisher: Sendable {
    let worker: ChannelWorker
    /// How many times a message is offered to a broker that keeps refusing it.
    public let nackAttempts: Int

    /// Starts connecting at once; publishes made before the connection is up wait for it.
    public init(configuration: ConnectionConfiguration, window: Int = 1000, nackAttempts: Int = 5) {
        worker = ChannelWorker(configuration: configuration, confirms: true, consume: nil, window: window)
        self.nackAttempts = max(1, nackAttempts)
        worker.start()
    }

    public var name: String { worker.configuration.name }

    /// Whether the connection is open right now.
    public var isConnected: Bool { worker.isConnected }
    /// Why the broker refuses this connection's publishes for now (a memory or disk alarm,
    /// `connection.blocked`), or nil: publishes wait until it lifts.
    public var blockedReason: String? { worker.blockedReason }

    /// The last connection error, while disconnected.
    public var lastError: MessagingError? { worker.lastError }

    /// How many messages were published again after a reconnect lost their confirm.
    public var republishedCount: Int { worker.republishedCount.load(ordering: .relaxed) }

    /// Publishes one message and calls `completion` (on the connection's thread) when the
    /// broker confirmed or refused it: for callers that race the confirm against their own
    /// deadline without a task per message.
    public func publish(_ message: OutgoingMessage, completion: @escaping @Sendable (Result<Void, MessagingError>) -> Void) {
        if let problem = message.problem {
            completion(.failure(MessagingError(.invalidMessage, problem)))
            return
        }
        worker.enqueue(CollectionOfOne(pending(message, completion: completion)))
    }

    /// Refuses messages AMQP cannot carry before any is sent.
    private func check(_ messages: some Sequence<OutgoingMessage>) throws {
        for message in messages {
            if let problem = message.problem { throw MessagingError(.invalidMessage, problem) }
        }
    }

    /// Publishes one message and waits for the broker's confirm.
    public func publish(_ message: OutgoingMessage) async throws {
        try check(CollectionOfOne(message))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            worker.enqueue(CollectionOfOne(pending(message) { result in
                continuation.resume(with: result.mapError { $0 as any Error })
            }))
        }
    }

    /// Publishes several messages pipelined and waits until every one is confirmed. Throws
    /// the first failure after all have completed; the others may have been delivered.
    public func publish(contentsOf messages: [OutgoingMessage]) async throws {
        guard !messages.isEmpty else { return }
        try check(messages)
        let batch = BatchCompletion(count: messages.count)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            batch.setContinuation(continuation)
            worker.enqueue(messages.map { message in
                pending(message) { result in batch.complete(result) }
            })
        }
    }

    /// A publish whose completion offers the message again when the broker refused it.
    private func pending(
        _ message: OutgoingMessage, attempt: Int = 1,
        completion: @escaping @Sendable (Result<Void, MessagingError>) -> Void
    ) -> PendingPublish {
        PendingPublish(message: message) { [self] result in
            if case .failure(let error) = result, error.reason == .publishRejected, attempt % 5 == 0 || attempt >= nackAttempts {
                worker.renewChannel(because: "the broker refused a message \(attempt) times running")
            }
            guard case .failure(let error) = result, error.reason == .publishRejected, attempt < nackAttempts else {
                completion(result)
                return
            }
            worker.configuration.logger.warning("broker refused a message; publishing it again", metadata: [
                "connection": "\(name)", "attempt": "\(attempt)", "messageId": "\(message.properties.messageId ?? "-")",
            ])
            Task {
                try? await Task.sleep(for: .milliseconds(min(2000, 50 << min(attempt, 6))))
                worker.enqueue(CollectionOfOne(pending(message, attempt: attempt + 1, completion: completion)))
            }
        }
    }

    /// Waits until the connection is up, or `timeout` passed. Returns whether it is up.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout) { self.isConnected }
    }

    /// Waits (up to `timeout`) for every queued message to be confirmed, then closes.
    public func close(timeout: Duration = .seconds(10)) async {
        await worker.stop(timeout: timeout)
    }
}

/// Counts down the confirms of a batch and resumes its caller once.
private final class BatchCompletion: Sendable {
    private struct State {
        var remaining: Int
        var firstError: MessagingError?
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(remaining: count))
    }

    func setContinuation(_ continuation: CheckedContinuation<Void, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func complete(_ result: Result<Void, MessagingError>) {
        let finished: (CheckedContinuation<Void, any Error>, MessagingError?)? = state.withLock { state in
            if case .failure(let error) = result, state.firstError == nil { state.firstError = error }
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.firstError)
        }
        guard let (continuation, error) = finished else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func waitUntil(timeout: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
