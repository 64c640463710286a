import DequeModule
import Synchronization

/// How many inputs a stage works on at once, counted in elements rather than AMQP messages
/// (a pack of a hundred deliveries is a hundred): `acquire` waits, first come first served,
/// until the budget has room.
final class ElementBudget: Sendable {
    private struct State: ~Copyable {
        var available: Int
        var waiters = Deque<(count: Int, continuation: CheckedContinuation<Void, Never>)>()
    }

    private let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(available: max(1, limit)))
    }

    /// Takes `count` (at most the whole budget), waiting while it is not there; returns what
    /// it took, for `release`.
    func acquire(_ count: Int) async -> Int {
        let wanted = min(max(1, count), limit)
        let granted = state.withLock { state -> Bool in
            guard state.waiters.isEmpty, state.available >= wanted else { return false }
            state.available -= wanted
            return true
        }
        if granted { return wanted }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.waiters.isEmpty, state.available >= wanted {
                    state.available -= wanted
                    return true
                }
                state.waiters.append((wanted, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        return wanted
    }

    func release(_ count: Int) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.available += count
            var woken: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiters.first, first.count <= state.available {
                state.available -= first.count
                woken.append(state.waiters.removeFirst().continuation)
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }
}
