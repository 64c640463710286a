import DequeModule
import Messaging
import ServiceLifecycle
import Synchronization

/// Fails the publishes whose broker confirm does not come in time, with one timer for all of
/// them: every publish waits the same time, so deadlines arrive in order and a queue
/// suffices (a sweep ten times a second looks only at the entries that are due). A
/// `Service`: it runs in the gateway's `ServiceGroup`, and on shutdown fails whatever still
/// waits and stops.
public final class Deadlines: Service, Sendable {
    private let pending = Mutex<Deque<(PendingConfirm, ContinuousClock.Instant)>>([])
    private let interval: Duration

    public init(interval: Duration = .milliseconds(100)) {
        self.interval = interval
    }

    /// Publishes `message` and returns when the broker confirmed it; fails when it refused it
    /// or when `timeout` passed first (a publish waiting for a broker that is gone goes on,
    /// and its late result is dropped).
    func publish(_ message: OutgoingMessage, with publisher: PackingPublisher, timeout: Duration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let confirm = PendingConfirm(continuation)
            // A later deadline never goes before an earlier one; an earlier one (a shorter
            // timeout) waits behind it, at worst until the one ahead is due.
            pending.withLock { $0.append((confirm, ContinuousClock.now + timeout)) }
            publisher.publish(message) { result in confirm.resume(result.mapError { $0 as any Error }) }
        }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.interval)
                self.sweep(before: .now)
            }
        }
        sweep(before: nil)
    }

    /// Fails the entries due before `now` (all of them when nil).
    private func sweep(before now: ContinuousClock.Instant?) {
        let due = pending.withLock { queue -> [PendingConfirm] in
            var due: [PendingConfirm] = []
            while let first = queue.first, now.map({ first.1 <= $0 }) ?? true {
                due.append(first.0)
                queue.removeFirst()
            }
            return due
        }
        for confirm in due { confirm.resume(.failure(CancellationError())) }
    }
}

/// A confirm being waited for: resumed once, by the broker's answer or by the deadline.
final class PendingConfirm: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, any Error>?>

    init(_ continuation: CheckedContinuation<Void, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: Result<Void, any Error>) {
        let taken = continuation.withLock { stored -> CheckedContinuation<Void, any Error>? in
            defer { stored = nil }
            return stored
        }
        taken?.resume(with: result)
    }
}
