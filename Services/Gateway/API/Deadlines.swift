import DequeModule
import Messaging
import Synchronization

/// Publishes `message` and returns when the broker confirmed it; fails when it refused it
/// or when `timeout` passed first (a publish waiting for a broker that is gone goes on, and
/// its late result is dropped). One shared timer serves every pending publish.
func publish(_ message: OutgoingMessage, with publisher: Publisher, timeout: Duration) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let pending = PendingConfirm(continuation)
        Deadlines.shared.add(pending, at: ContinuousClock.now + timeout)
        publisher.publish(message) { result in pending.resume(result.mapError { $0 as any Error }) }
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

/// Fails pending confirms whose deadline passed, checking ten times a second. Every
/// publish waits the same time, so deadlines arrive in order and a queue suffices: a sweep
/// looks only at the entries that are due.
final class Deadlines: Sendable {
    static let shared = Deadlines()
    private let pending = Mutex<Deque<(PendingConfirm, ContinuousClock.Instant)>>([])
    private let started = Mutex(false)

    func add(_ confirm: PendingConfirm, at deadline: ContinuousClock.Instant) {
        pending.withLock { queue in
            // A later deadline never goes before an earlier one; an earlier one (a shorter
            // timeout) waits behind it, at worst until the one ahead is due.
            queue.append((confirm, deadline))
        }
        let first = started.withLock { running -> Bool in
            defer { running = true }
            return !running
        }
        if first {
            Task.detached { [self] in
                while true {
                    try? await Task.sleep(for: .milliseconds(100))
                    sweep()
                }
            }
        }
    }

    private func sweep() {
        let now = ContinuousClock.now
        let due = pending.withLock { queue -> [PendingConfirm] in
            var due: [PendingConfirm] = []
            while let first = queue.first, first.1 <= now {
                due.append(first.0)
                queue.removeFirst()
            }
            return due
        }
        for confirm in due { confirm.resume(.failure(CancellationError())) }
    }
}
