import Foundation
import HeraldDomain
import HeraldModel
import ServiceKit

/// When to try a failed send again: exponential backoff from `initialDelay` (doubling) with
/// up to `jitter` of it added at random, never sooner than the provider's `Retry-After`,
/// rounded up to a delay tier of the broker, and never after `maximumAge` from the first
/// attempt or after the request expires.
public struct RetryPolicy: Sendable, Hashable {
    public var initialDelay: Duration
    public var multiplier: Double
    /// The share of the delay added at random (0.5: up to +50 %).
    public var jitter: Double
    public var maximumAge: Duration

    public init(initialDelay: Duration = .seconds(1), multiplier: Double = 2, jitter: Double = 0.5, maximumAge: Duration = .seconds(7200)) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.maximumAge = maximumAge
    }

    /// The delay after failed attempt number `attempt` (1 for the first send), at most
    /// `RetryAfter.longest` however large the attempt or the provider's `Retry-After`.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double = Double.random(in: 0..<1)) -> Duration {
        let base = Self.seconds(initialDelay) * pow(multiplier, Double(max(0, attempt - 1)))
        let backoff = base * (1 + jitter * random)
        return RetryAfter.capped(seconds: max(backoff, retryAfter.map(Self.seconds) ?? 0))
    }

    /// The broker tier a delay is scheduled with: the smallest not shorter than it.
    public func tier(for delay: Duration) -> RetryTier {
        RetryTier.atLeast(seconds: Self.seconds(delay))
    }

    /// The last instant a retry may be scheduled for.
    public func deadline(firstAttemptAt: Date, expiresAt: Date?) -> Date {
        let age = firstAttemptAt.addingTimeInterval(Self.seconds(maximumAge))
        return expiresAt.map { min($0, age) } ?? age
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
