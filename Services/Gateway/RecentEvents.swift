import Crypto
import Foundation
import Synchronization

/// Event ids accepted lately, per app: a repeat inside the window is answered 202 again
/// without a second publish. Bounded in time and size; the durable check is Registration's.
///
/// Each id is kept as a 128-bit digest of its app and id, in a table and a ring of arrival
/// order sized once for `capacity`: a full window allocates nothing per request. (Keeping the
/// ids as strings, one small allocation each living minutes amid every request's short ones,
/// made the allocator's heap creep by megabytes a minute in the hour-long soak.)
public final class RecentEvents: Sendable {
    /// SHA-256 of `app`, a zero byte and the event id, its first 16 bytes.
    struct Key: Hashable {
        var high: UInt64
        var low: UInt64

        static let zero = Key(high: 0, low: 0)

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        init(app: String, eventId: String) {
            var hasher = SHA256()
            var app = app, eventId = eventId
            app.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            withUnsafeBytes(of: UInt8(0)) { hasher.update(bufferPointer: $0) }
            eventId.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            let digest = hasher.finalize()
            (high, low) = digest.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        }
    }

    private struct Arrival {
        var key: Key
        var at: Double
    }

    private struct State {
        /// When each id was last accepted.
        var seen: [Key: Double]
        /// Every acceptance in order, oldest at `head`: a ring of `capacity` slots.
        var ring: [Arrival]
        var head = 0
        var count = 0

        init(capacity: Int) {
            seen = Dictionary(minimumCapacity: capacity)
            ring = Array(repeating: Arrival(key: .zero, at: 0), count: capacity)
        }

        /// Forgets the oldest acceptance (its id too, unless accepted again since).
        mutating func dropOldest() {
            let oldest = ring[head]
            if seen[oldest.key] == oldest.at { seen.removeValue(forKey: oldest.key) }
            head = (head + 1) % ring.count
            count -= 1
        }
    }

    private let state: Mutex<State>
    let window: TimeInterval
    let capacity: Int

    public init(window: TimeInterval = 600, capacity: Int = 200_000) {
        self.window = window
        self.capacity = max(1, capacity)
        state = Mutex(State(capacity: self.capacity))
    }

    public func contains(app: String, eventId: String, now: Date = Date()) -> Bool {
        let key = Key(app: app, eventId: eventId)
        return state.withLock { state in
            guard let at = state.seen[key] else { return false }
            return now.timeIntervalSinceReferenceDate - at < window
        }
    }

    public func insert(app: String, eventId: String, now: Date = Date()) {
        let key = Key(app: app, eventId: eventId)
        let at = now.timeIntervalSinceReferenceDate
        state.withLock { state in
            while state.count > 0, state.count == capacity || at - state.ring[state.head].at >= window {
                state.dropOldest()
            }
            state.seen[key] = at
            state.ring[(state.head + state.count) % capacity] = Arrival(key: key, at: at)
            state.count += 1
        }
    }

    /// How many acceptances it holds now (at most `capacity`).
    var count: Int { state.withLock { $0.count } }
}
