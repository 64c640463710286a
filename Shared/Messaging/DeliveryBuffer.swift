import DequeModule
import Synchronization

/// Where a worker thread hands its deliveries.
protocol DeliverySink: Sendable {
    /// Takes one delivery; need not wake anybody yet.
    func append(_ message: ReceivedMessage)
    /// The end of a read burst: wake whoever waits for deliveries.
    func flush()
    /// No more deliveries will come.
    func finish()
}

/// The queue between a consumer's worker thread and the task iterating the consumer. The
/// worker appends a whole read burst and wakes the iterating task once at its end; the task
/// then drains what is buffered without suspending. Handing messages over one by one (as an
/// `AsyncStream` does) costs a thread wake-up per message.
final class DeliveryBuffer: DeliverySink, Sendable {
    private struct State: ~Copyable {
        var items = Deque<ReceivedMessage>()
        var waiter: CheckedContinuation<ReceivedMessage?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    func append(_ message: ReceivedMessage) {
        state.withLock { $0.items.append(message) }
    }

    func flush() {
        let handoff: (CheckedContinuation<ReceivedMessage?, Never>, ReceivedMessage)? = state.withLock { state in
            guard let waiter = state.waiter, let first = state.items.popFirst() else { return nil }
            state.waiter = nil
            return (waiter, first)
        }
        if let (waiter, message) = handoff { waiter.resume(returning: message) }
    }

    func finish() {
        let handoff: (CheckedContinuation<ReceivedMessage?, Never>, ReceivedMessage?)? = state.withLock { state in
            state.finished = true
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.items.popFirst())
        }
        if let (waiter, message) = handoff { waiter.resume(returning: message) }
    }

    /// How many deliveries are buffered.
    var count: Int { state.withLock { $0.items.count } }

    /// Up to `limit` deliveries that are already buffered, without waiting for more.
    func drain(upTo limit: Int) -> [ReceivedMessage] {
        guard limit > 0 else { return [] }
        return state.withLock { state in
            var taken: [ReceivedMessage] = []
            taken.reserveCapacity(min(limit, state.items.count))
            while taken.count < limit, let item = state.items.popFirst() { taken.append(item) }
            return taken
        }
    }

    /// The next delivery; nil once finished and drained, or when the waiting task is cancelled.
    /// Runs on the caller's executor, so draining buffered deliveries never hops threads.
    func next(isolation: isolated (any Actor)? = #isolation) async -> ReceivedMessage? {
        enum Immediate { case message(ReceivedMessage), end, wait }
        let immediate: Immediate = state.withLock { state in
            if let first = state.items.popFirst() { return .message(first) }
            return state.finished ? .end : .wait
        }
        switch immediate {
        case .message(let message): return message
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                let ready: ReceivedMessage?? = state.withLock { state in
                    if let first = state.items.popFirst() { return .some(first) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if case .some(let result) = ready { continuation.resume(returning: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<ReceivedMessage?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
