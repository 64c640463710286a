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
        /// The replica set's stream of delivered ids (`SentRecord`).
        public var sent: QueueSpec
        public init(
            platform: Platform,
            input: QueueSpec? = nil,
            retry: ExchangeSpec = HeraldTopology.Exchange.retry,
            control: ExchangeSpec = HeraldTopology.Exchange.control,
            outcomes: ExchangeSpec = HeraldTopology.Exchange.outcomes,
            sent: QueueSpec? = nil
        ) {
            self.input = input ?? HeraldTopology.Queue.dispatch(platform)
            self.retry = retry
            self.control = control
            self.outcomes = outcomes
            self.sent = sent ?? HeraldTopology.Queue.sent(platform)
        }
    }

    /// A dispatcher's services: the stage, and the follower that keeps its record of what
    /// the replica set delivered (so no replica sends a delivered push again).
    public static func services(
        runtime: ServiceRuntime, platform: Platform, routes: Routes? = nil, prefetch: UInt16,
        record: SentRecord = SentRecord(), send: @escaping Send
    ) -> [any Service] {
        let routes = routes ?? Routes(platform: platform)
        return [
            SentRecordFollower(stream: routes.sent, record: record, runtime: runtime),
            make(runtime: runtime, platform: platform, routes: routes, prefetch: prefetch, record: record, send: send),
        ]
    }

    /// The stage. With a `record`, a request the replica set delivered lately is not sent
    /// again (its outcome is `delivered` once more), and each delivered id is recorded here
    /// and appended to `routes.sent` before its outcome is published; a copy of a request
    /// this process is sending right now waits for that send instead of going alongside it
    /// (`InFlightSends`).
    public static func make(
        runtime: ServiceRuntime, platform: Platform, routes: Routes? = nil, prefetch: UInt16,
        policy: RetryPolicy = RetryPolicy(), now: @escaping @Sendable () -> Date = Date.init, record: SentRecord? = nil,
        send: @escaping Send
    ) -> Stage<DispatchRequest> {
        let routes = routes ?? Routes(platform: platform)
        let logger = runtime.logger
        let suppressed = Counter(label: "herald_dispatch_duplicates_suppressed_total", dimensions: [("platform", platform.rawValue)])
        let inFlight = record.map { _ in InFlightSends() }
        return Stage("dispatch.\(platform.rawValue)", consuming: routes.input, prefetch: prefetch, runtime: runtime) { request in
            let sentAt = now()
            if let expiresAt = request.expiresAt, expiresAt <= sentAt {
                count(platform, "expired")
                return [try .outcome(Outcome(request: request, status: .expired, reason: "expired before attempt \(request.attempt)", at: sentAt), to: routes.outcomes)]
            }
            if let parked = try parked(request, routes: routes, now: sentAt) { return parked }
            func deliveredBefore() throws -> [Emission] {
                // Delivered before, but that outcome never got out: report it, do not send again.
                suppressed.increment()
                logger.info("delivered before; not sent again", metadata: ["deliveryId": "\(request.deliveryId)"])
                return [try .outcome(Outcome(request: request, status: .delivered, reason: "delivered before; not sent again", at: sentAt), to: routes.outcomes)]
            }
            if let record, record.contains(request.deliveryId, now: sentAt) { return try deliveredBefore() }
            if let inFlight, await !inFlight.begin(request.deliveryId) {
                // Another copy was being sent: delivered, or it reported its own retry or failure.
                if let record, record.contains(request.deliveryId, now: now()) { return try deliveredBefore() }
                suppressed.increment()
                return []
            }
            let result = await send(request)
            if let record, case .delivered = result { record.insert(request.deliveryId, at: sentAt) }
            await inFlight?.end(request.deliveryId)
            var emissions = try emissions(for: request, result: result, platform: platform, routes: routes, policy: policy, sentAt: sentAt, now: now(), logger: logger)
            if record != nil, case .delivered = result {
                // Ahead of the outcome: if the outcome fails to go out, the record may not.
                emissions.insert(Emission(SentRecord.announcement(request.deliveryId, to: routes.sent)), at: 0)
            }
            return emissions
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
            retries[platform]?[tier]?.increment()
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

    /// `herald_dispatch_retries_total` by platform and the delay tier the retry waits in, made once.
    private static let retries: [Platform: [RetryTier: Counter]] = Dictionary(uniqueKeysWithValues: Platform.allCases.map { platform in
        (platform, Dictionary(uniqueKeysWithValues: HeraldTopology.retryTiers.map { tier in
            (tier, Counter(label: "herald_dispatch_retries_total", dimensions: [("platform", platform.rawValue), ("tier", tier.label)]))
        }))
    })

    /// `herald_dispatch_results_total` by platform and result, made once.
    private static let results: [Platform: [String: Counter]] = Dictionary(uniqueKeysWithValues: Platform.allCases.map { platform in
        (platform, Dictionary(uniqueKeysWithValues: ["delivered", "failed", "revoked", "retried", "expired"].map { result in
            (result, Counter(label: "herald_dispatch_results_total", dimensions: [("platform", platform.rawValue), ("result", result)]))
        }))
    })
}
