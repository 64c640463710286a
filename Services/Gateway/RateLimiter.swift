import Foundation
import HeraldDomain
import Metrics
import ServiceKit
import Synchronization

/// The gateway's rate limits (`rateLimits` of each app in the apps file): a token bucket for
/// the app as a whole and one for each of its keys. A request takes a token from both; when
/// either is empty it is refused with 429 and the seconds until a token is back in
/// `Retry-After`. Buckets live in this process; with several gateways each takes an equal
/// share of every limit (`share(among:)`, told by `GatewayPeers`), so together they hold
/// the app to it. A reloaded apps file replaces the limits; the buckets go on.
public final class RateLimiter: Sendable {
    /// Seconds since some fixed instant; injected so tests control time.
    public typealias Now = @Sendable () -> Double

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let limits: Mutex<[String: AppConfiguration.RateLimits]>
    private let now: Now
    private let buckets = Mutex<[String: Bucket]>([:])

    /// How many gateways share the limits (this one included).
    private let replicas = Mutex(1)

    public init(apps: AppsConfiguration, now: @escaping Now = RateLimiter.monotonicSeconds) {
        limits = Mutex(apps.apps.mapValues(\.rateLimits))
        self.now = now
    }

    /// The limits of a reloaded apps file.
    public func update(apps: AppsConfiguration) {
        limits.withLock { $0 = apps.apps.mapValues(\.rateLimits) }
    }

    /// Takes `1/count` of every limit from now on: `count` gateways serve the apps. The burst
    /// share is at least one request, so a limit never refuses everything.
    public func share(among count: Int) {
        replicas.withLock { $0 = max(1, count) }
    }

    /// Takes a token for a request of `app` with key `keyId`, or throws 429.
    public func admit(app: String, keyId: String) throws(GatewayError) {
        guard let limits = limits.withLock({ $0[app] }), limits.app != nil || limits.key != nil else { return }
        let share = Double(replicas.withLock { $0 })
        let at = now()
        let wait: Double? = buckets.withLock { buckets in
            // Both buckets must hold a token before either gives one.
            var refilled: [(name: String, bucket: Bucket, limit: AppConfiguration.RateLimit)] = []
            for (name, whole) in [("app:\(app)", limits.app), ("key:\(app)/\(keyId)", limits.key)] {
                guard let whole else { continue }
                let limit = AppConfiguration.RateLimit(perSecond: whole.perSecond / share, burst: max(1, Int((Double(whole.burst) / share).rounded())))
                var bucket = buckets[name] ?? Bucket(tokens: Double(limit.burst), updated: at)
                bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, at - bucket.updated) * limit.perSecond)
                bucket.updated = at
                refilled.append((name, bucket, limit))
            }
            let waits = refilled.filter { $0.bucket.tokens < 1 }.map { (1 - $0.bucket.tokens) / $0.limit.perSecond }
            for entry in refilled {
                var bucket = entry.bucket
                if waits.isEmpty { bucket.tokens -= 1 }
                buckets[entry.name] = bucket
            }
            return waits.max()
        }
        if let wait {
            Counter(label: "herald_gateway_rate_limited_total", dimensions: [("app", app)]).increment()
            throw GatewayError(429, "Too Many Requests", "the rate limit of \(app) or of this key is reached; retry later", retryAfter: max(1, Int(wait.rounded(.up))))
        }
    }

    public static func monotonicSeconds() -> Double {
        let now = ContinuousClock.now - start
        return Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
    }

    private static let start = ContinuousClock.now
}
