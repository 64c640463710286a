import Synchronization

/// Stops sending to a destination that keeps failing, so that its backlog waits in the
/// broker instead of costing an attempt, and an outcome, each time it comes back: after
/// `threshold` retryable failures in a row the circuit opens for `firstOpen`; while it is
/// open, sends are held (`SendResult.held`) without a request. When the time is up one
/// send probes the destination, and the others are held meanwhile. An answer closes the
/// circuit; another failure opens it again for twice as long, up to `longestOpen`.
public final class CircuitBreaker<C: Clock>: Sendable where C.Duration == Duration {
    public typealias Configuration = CircuitBreakerConfiguration

    /// Whether a send may go out now.
    public enum Decision: Sendable, Hashable {
        /// Send it; `probe` when it is the one send that tests an open circuit.
        case send(probe: Bool)
        /// Do not send it now; try again after this long.
        case hold(Duration)
    }

    /// The circuit as the destination's answers left it.
    public enum State: Sendable, Hashable {
        case closed(failures: Int)
        case open(until: C.Instant, length: Duration)
        /// Open, with one probe in flight since `since` (another goes when it is lost:
        /// after `firstOpen` with no answer).
        case probing(length: Duration, since: C.Instant)
    }

    public let configuration: Configuration
    private let clock: C
    private let state: Mutex<State>

    public init(configuration: Configuration = Configuration(), clock: C) {
        self.configuration = configuration
        self.clock = clock
        state = Mutex(.closed(failures: 0))
    }

    public var current: State { state.withLock { $0 } }

    /// Whether the next send may go out, and if not, for how long to hold it.
    public func admit() -> Decision {
        let now = clock.now
        return state.withLock { state in
            switch state {
            case .closed:
                return .send(probe: false)
            case .open(let until, let length):
                guard now < until else {
                    state = .probing(length: length, since: now)
                    return .send(probe: true)
                }
                return .hold(now.duration(to: until))
            case .probing(let length, let since):
                guard since.duration(to: now) < configuration.firstOpen else {
                    state = .probing(length: length, since: now)
                    return .send(probe: true)
                }
                return .hold(configuration.firstOpen)
            }
        }
    }

    /// Records what a send that `admit` let out found: `failed` for a retryable failure (the
    /// destination did not answer, or answered 429 or 5xx). Answers the state it changed to,
    /// or nil when it did not change.
    @discardableResult
    public func record(failed: Bool, probe: Bool) -> State? {
        let now = clock.now
        return state.withLock { state -> State? in
            switch state {
            case .closed(let failures):
                guard failed else {
                    state = .closed(failures: 0)
                    return nil
                }
                guard failures + 1 >= configuration.threshold else {
                    state = .closed(failures: failures + 1)
                    return nil
                }
                state = .open(until: now.advanced(by: configuration.firstOpen), length: configuration.firstOpen)
                return state
            case .open, .probing:
                // Any answer shows the destination is back.
                guard failed else {
                    state = .closed(failures: 0)
                    return state
                }
                // A failure of a send let out before the circuit opened is no news.
                guard probe, case .probing(let length, _) = state else { return nil }
                let longer = min(length * 2, configuration.longestOpen)
                state = .open(until: now.advanced(by: longer), length: longer)
                return state
            }
        }
    }
}

/// When a `CircuitBreaker` opens and for how long.
public struct CircuitBreakerConfiguration: Sendable, Hashable {
    /// Retryable failures in a row that open the circuit.
    public var threshold: Int
    /// How long it stays open the first time.
    public var firstOpen: Duration
    /// How long it may stay open after failed probes (each doubles the time).
    public var longestOpen: Duration

    public init(threshold: Int = 5, firstOpen: Duration = .seconds(30), longestOpen: Duration = .seconds(600)) {
        self.threshold = max(1, threshold)
        self.firstOpen = firstOpen
        self.longestOpen = max(firstOpen, longestOpen)
    }
}
