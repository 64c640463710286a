import Foundation
@testable import Gateway
import HeraldDomain
import ServiceKit
import Synchronization
import Testing

/// The gateway's token buckets, on a clock the test moves.
struct RateLimiterTests {
    final class FakeClock: Sendable {
        private let seconds = Mutex(0.0)
        var now: Double { seconds.withLock { $0 } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    static func limiter(app: AppConfiguration.RateLimit? = nil, key: AppConfiguration.RateLimit? = nil, clock: FakeClock) -> RateLimiter {
        RateLimiter(apps: AppsConfiguration(apps: ["demo": AppConfiguration(rateLimits: .init(app: app, key: key)), "free": AppConfiguration()]), now: { clock.now })
    }

    /// The error of a request of `app` with `key`, or nil when it is admitted.
    static func refused(_ limiter: RateLimiter, _ app: String, _ key: String) -> GatewayError? {
        do {
            try limiter.admit(app: app, keyId: key)
            return nil
        } catch {
            return error
        }
    }

    @Test func aKeyGetsItsBurstThenWaitsForTheRateWithRetryAfter() {
        let clock = FakeClock()
        let limiter = Self.limiter(key: .init(perSecond: 0.5, burst: 2), clock: clock)
        #expect(Self.refused(limiter, "demo", "a") == nil)
        #expect(Self.refused(limiter, "demo", "a") == nil)
        let error = Self.refused(limiter, "demo", "a")
        #expect(error?.status == 429 && error?.retryAfter == 2, "one token every two seconds")
        #expect(Self.refused(limiter, "demo", "b") == nil, "each key has its own bucket")
        clock.advance(2)
        #expect(Self.refused(limiter, "demo", "a") == nil)
        #expect(Self.refused(limiter, "demo", "a")?.status == 429)
    }

    @Test func theAppsBucketHoldsForAllItsKeysTogether() {
        let clock = FakeClock()
        let limiter = Self.limiter(app: .init(perSecond: 1, burst: 3), key: .init(perSecond: 10, burst: 10), clock: clock)
        for key in ["a", "b", "c"] { #expect(Self.refused(limiter, "demo", key) == nil) }
        #expect(Self.refused(limiter, "demo", "d")?.status == 429)
        clock.advance(1)
        #expect(Self.refused(limiter, "demo", "d") == nil)
    }

    @Test func aRefusedRequestTakesNoTokenFromTheOtherBucket() {
        let clock = FakeClock()
        let limiter = Self.limiter(app: .init(perSecond: 1, burst: 2), key: .init(perSecond: 1, burst: 1), clock: clock)
        #expect(Self.refused(limiter, "demo", "a") == nil)
        for _ in 0..<5 { #expect(Self.refused(limiter, "demo", "a")?.status == 429) }
        #expect(Self.refused(limiter, "demo", "b") == nil, "the app's second token is still there")
    }

    @Test func eachOfSeveralGatewaysTakesItsShareOfTheLimitAndAtLeastOneRequestOfTheBurst() {
        let clock = FakeClock()
        let limiter = Self.limiter(app: .init(perSecond: 4, burst: 4), clock: clock)
        limiter.share(among: 2)
        for _ in 0..<2 { #expect(Self.refused(limiter, "demo", "a") == nil) }
        #expect(Self.refused(limiter, "demo", "a")?.retryAfter == 1, "half the burst, then half the rate: 2 a second")
        clock.advance(1)
        for _ in 0..<2 { #expect(Self.refused(limiter, "demo", "a") == nil) }
        #expect(Self.refused(limiter, "demo", "a")?.status == 429)
        limiter.share(among: 8)
        clock.advance(2)
        #expect(Self.refused(limiter, "demo", "a") == nil, "a burst share under one request is one")
        #expect(Self.refused(limiter, "demo", "a")?.status == 429)
        limiter.share(among: 1)
        clock.advance(1)
        for _ in 0..<4 { #expect(Self.refused(limiter, "demo", "a") == nil, "alone again: the whole limit") }
    }

    @Test func anAppWithoutLimitsIsNeverRefused() {
        let limiter = Self.limiter(clock: FakeClock())
        for _ in 0..<10_000 { #expect(Self.refused(limiter, "free", "k") == nil) }
    }
}
