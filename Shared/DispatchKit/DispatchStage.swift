import Foundation
import HeraldModel
import Logging
import Messaging
import Metrics
import ServiceKit

/// The stage every provider dispatcher is: consume `dispatch.<platform>`, drop expired
/// requests, send, and turn the `SendResult` into what follows — an outcome; for a dead
/// token a `herald.token-revoked.v1` too; for a retryable failure the request again, one
/// attempt later, into the broker's delay tier (never a sleep here, so a restart loses no
/// scheduled retry). The input is acknowledged only after all of it is confirmed.
public enum DispatchStage {
    public typealias Send = @Sendable (DispatchRequest) async -> SendResult

    /// Where the stage reads and writes; Herald's topology by default, other names in tests.
    public struct Routes: Sendable {
        public var input: QueueSpec
        public var retry: ExchangeSpec
        public var control: ExchangeSpec
        public var outcomes: ExchangeSpec
        public init(
            platform: Platform,
            input: QueueSpec? = nil,
            retry: ExchangeSpec = HeraldTopology.Exchange.retry,
            control: ExchangeSpec = HeraldTopology.Exchange.control,
            outcomes: ExchangeSpec = HeraldTopology.Exchange.outcomes
        ) {
            self.input = input ?? HeraldTopology.Queue.dispatch(platform)
            self.retry = retry
            self.control = control
            self.outcomes = outcomes
        }
    }

    public static func make(
        runtime: ServiceRuntime, platform: Platform, routes: Routes? = nil, prefetch: UInt16,
        policy: RetryPolicy = RetryPolicy(), now: @escaping @Sendable () -> Date = Date.init, send: @escaping Send
    ) -> Stage<DispatchRequest> {
        let routes = routes ?? Routes(platform: platform)
        let logger = runtime.logger
        return Stage("dispatch.\(platform.rawValue)", consuming: routes.input, prefetch: prefetch, runtime: runtime) { request in
            let sentAt = now()
            if let expiresAt = request.expiresAt, expiresAt <= sentAt {
                count(platform, "expired")
                return [try .outcome(Outcome(request: request, status: .expired, reason: "expired before attempt \(request.attempt)", at: sentAt), to: routes.outcomes)]
            }
            if let parked = try parked(request, routes: routes, now: sentAt) { return parked }
            let result = await send(request)
            return try emissions(for: request, result: result, platform: platform, routes: routes, policy: policy, sentAt: sentAt, now: now(), logger: logger)
        }
    }

    /// A request back from a delay tier before its `notBefore`: the same request into the
    /// tier for the time left (the longest, if it is longer), with no send and no outcome;
    /// nil when it may be sent now.
    public static func parked(_ request: DispatchRequest, routes: Routes, now: Date) throws -> [Emission]? {
        guard let notBefore = request.notBefore, notBefore > now else { return nil }
        let tier = RetryTier.atLeast(seconds: notBefore.timeIntervalSince(now))
        return [try .publish(request, to: routes.retry, routingKey: HeraldTopology.retryRoutingKey(request.platform, tier))]
    }

    /// What follows one send.
    public static func emissions(
        for request: DispatchRequest, result: SendResult, platform: Platform, routes: Routes, policy: RetryPolicy,
        sentAt: Date, now: Date, logger: Logger? = nil
    ) throws -> [Emission] {
        switch result {
        case .delivered(let providerId):
            count(platform, "delivered")
            return [try .outcome(Outcome(request: request, status: .delivered, reason: providerId, at: now), to: routes.outcomes)]
        case .failed(let code, let reason):
            count(platform, "failed")
            return [try .outcome(Outcome(request: request, status: .failed, reason: reason, providerCode: code, at: now), to: routes.outcomes)]
        case .expired(let code, let reason):
            count(platform, "expired")
            return [try .outcome(Outcome(request: request, status: .expired, reason: reason, providerCode: code, at: now), to: routes.outcomes)]
        case .revoked(let code, let reason):
            count(platform, "revoked")
            let revocation = TokenRevoked(
                app: request.app, platform: platform, token: request.token, reason: code, deviceId: request.deviceId,
                failedSendAt: sentAt, deliveryId: request.deliveryId, eventId: request.eventId)
            return [
                try .publish(revocation, to: routes.control, routingKey: HeraldTopology.RoutingKey.tokenRevoked),
                try .outcome(Outcome(request: request, status: .revoked, reason: reason, providerCode: code, at: now), to: routes.outcomes),
            ]
        case .retry(let code, let reason, let retryAfter):
            if request.ttlSeconds == 0 {
                // "Now or never": one attempt, as the providers treat a TTL of 0.
                count(platform, "expired")
                return [try .outcome(Outcome(
                    request: request, status: .expired, reason: "TTL of 0 s: tried once, not retried: \(reason)",
                    providerCode: code, at: now), to: routes.outcomes)]
            }
            let firstAttemptAt = request.firstAttemptAt ?? sentAt
            let delay = policy.delay(afterAttempt: request.attempt, retryAfter: retryAfter)
            let tier = policy.tier(for: delay)
            // Longer than the longest tier: round the tiers until `notBefore`.
            let wait = max(TimeInterval(tier.seconds), RetryPolicy.seconds(delay))
            // Two hours from acceptance (from the first attempt for a request without it).
            let deadline = policy.deadline(firstAttemptAt: request.acceptedAt ?? firstAttemptAt, expiresAt: request.expiresAt)
            guard now.addingTimeInterval(wait) <= deadline else {
                count(platform, "expired")
                return [try .outcome(Outcome(
                    request: request, status: .expired, reason: "gave up after \(request.attempt) attempts: \(reason)",
                    providerCode: code, at: now), to: routes.outcomes)]
            }
            count(platform, "retried")
            logger?.info("send will be retried", metadata: [
                "deliveryId": "\(request.deliveryId)", "attempt": "\(request.attempt)", "code": "\(code)", "tier": "\(tier.label)",
            ])
            var next = request
            next.attempt += 1
            next.firstAttemptAt = firstAttemptAt
            next.notBefore = wait > TimeInterval(tier.seconds) ? now.addingTimeInterval(wait) : nil
            return [
                try .publish(next, to: routes.retry, routingKey: HeraldTopology.retryRoutingKey(platform, tier)),
                try .outcome(Outcome(
                    request: request, status: .retrying, reason: "\(reason); attempt \(next.attempt) " + (next.notBefore.map { "at \(HeraldJSON.formatTimestamp($0))" } ?? "in \(tier.label)"),
                    providerCode: code, at: now), to: routes.outcomes),
            ]
        }
    }

    private static func count(_ platform: Platform, _ result: String) {
        results[platform]?[result]?.increment()
    }

    /// `herald_dispatch_results_total` by platform and result, made once.
    private static let results: [Platform: [String: Counter]] = Dictionary(uniqueKeysWithValues: Platform.allCases.map { platform in
        (platform, Dictionary(uniqueKeysWithValues: ["delivered", "failed", "revoked", "retried", "expired"].map { result in
            (result, Counter(label: "herald_dispatch_results_total", dimensions: [("platform", platform.rawValue), ("result", result)]))
        }))
    })
}
