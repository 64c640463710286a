/// Exponential backoff with jitter: attempt n waits between half and all of
/// `min(maximum, initial · 2ⁿ)`, so a herd of reconnecting services spreads out.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before attempt `attempt` (0-based).
    public func delay(attempt: Int, jitter: Double = Double.random(in: 0.5...1)) -> Duration {
        let exponent = min(attempt, 30)
        let ceiling = min(maximum, initial * (1 << exponent))
        return ceiling * jitter
    }
}
