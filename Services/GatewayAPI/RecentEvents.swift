import Foundation
import Synchronization

/// Event ids accepted lately, per app: a repeat inside the window is answered 202 again
/// without a second publish. Bounded in time and size; the durable check is Registration's.
public final class RecentEvents: Sendable {
    private struct State {
        var seen: [String: Date] = [:]
        var order: [(key: String, at: Date)] = []
        var head = 0
    }

    private let state = Mutex(State())
    let window: TimeInterval
    let capacity: Int

    public init(window: TimeInterval = 600, capacity: Int = 200_000) {
        self.window = window
        self.capacity = capacity
    }

    public func contains(app: String, eventId: String, now: Date = Date()) -> Bool {
        state.withLock { state in
            guard let at = state.seen["\(app)\u{0}\(eventId)"] else { return false }
            return now.timeIntervalSince(at) < window
        }
    }

    public func insert(app: String, eventId: String, now: Date = Date()) {
        let key = "\(app)\u{0}\(eventId)"
        state.withLock { state in
            state.seen[key] = now
            state.order.append((key, now))
            while state.head < state.order.count,
                  state.order.count - state.head > capacity || now.timeIntervalSince(state.order[state.head].at) >= window {
                let old = state.order[state.head]
                if state.seen[old.key] == old.at { state.seen.removeValue(forKey: old.key) }
                state.head += 1
            }
            if state.head > 10_000 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }
}
