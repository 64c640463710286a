import Foundation
import HeraldDomain
import HeraldModel
import HeraldTracing
import Logging
import Messaging
import Metrics
import ServiceKit

/// The stage every provider dispatcher is: consume `dispatch.<platform>` in batches (what
/// the prefetch holds when a batch slot frees up), drop expired requests, hand the rest to
/// the provider client at once (a unicast provider sends them concurrently, a multicast one
/// groups them), and turn each `SendResult` into what follows — an outcome; for a dead token
/// a `herald.token-revoked.v1` too; for a retryable failure the request again, one attempt
/// later, into the broker's delay tier (never a sleep here, so a restart loses no scheduled
/// retry). A batch is acknowledged only after all it emitted is confirmed.
public enum DispatchStage {
    /// Sends a batch and answers one result per request, in order.
    public typealias Send = @Sendable ([DispatchRequest]) async -> [SendResult]

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

    /// How many messages a dispatcher takes from its queue, and how it batches them.
    public struct Batching: Sendable, Hashable {
        /// Messages taken from the queue and not yet acknowledged.
        public var prefetch: UInt16
        /// Batches sent at once: while they are in flight, the next gathers what arrives.
        public var batchesInFlight: Int
        /// The most requests handed to the client at once: a batch of packs can hold a
        /// hundred times `prefetch` requests, and goes in slices of this many, one after the
        /// other, so a fan-out does not queue at the transport past its wait limit.
        public var sendLimit: Int

        public init(prefetch: UInt16, batchesInFlight: Int = 4, sendLimit: Int? = nil) {
            self.prefetch = prefetch
            self.batchesInFlight = max(1, batchesInFlight)
            self.sendLimit = max(1, sendLimit ?? Int(prefetch))
        }
    }

    /// A dispatcher's services: the stage, and the follower that keeps its record of what
    /// the replica set delivered (so no replica sends a delivered push again).
    public static func services(
        runtime: ServiceRuntime, platform: Platform, routes: Routes? = nil, batching: Batching,
        record: SentRecord = SentRecord(), send: @escaping Send
    ) -> [any Service] {
        let routes = routes ?? Routes(platform: platform)
        return [
            SentRecordFollower(stream: routes.sent, record: record, runtime: runtime),
            make(runtime: runtime, platform: platform, routes: routes, batching: batching, record: record, send: send),
        ]
    }

    /// The stage. With a `record`, a request the replica set delivered lately is not sent
    /// again (its outcome is `delivered` once more), and each delivered id is recorded here
    /// and appended to `routes.sent` before its outcome is published; a copy of a request
    /// this process is sending right now (in this batch or another) waits for that send
    /// instead of going alongside it (`InFlightSends`).
    public static func make(
        runtime: ServiceRuntime, platform: Platform, routes: Routes? = nil, batching: Batching,
        policy: RetryPolicy = RetryPolicy(), now: @escaping @Sendable () -> Date = Date.init, record: SentRecord? = nil,
        send: @escaping Send
    ) -> Stage<DispatchRequest> {
        let routes = routes ?? Routes(platform: platform)
        // Every series of the platform from the start, at zero.
        for result in ["delivered", "failed", "revoked", "retried", "expired", "held"] { _ = results[ResultKey(platform: platform, result: result)] }
        for tier in HeraldTopology.retryTiers { _ = retries[TierKey(platform: platform, tier: tier)] }
        let batch = Batch(
            platform: platform, routes: routes, policy: policy, now: now, record: record, sendLimit: batching.sendLimit,
            inFlight: record.map { _ in InFlightSends() }, send: send, logger: runtime.logger,
            suppressed: Counter(label: "herald_dispatch_duplicates_suppressed_total", dimensions: [("platform", platform.rawValue)]))
        return Stage(
            "dispatch.\(platform.rawValue)", consuming: routes.input, prefetch: batching.prefetch,
            batchSize: Int(batching.prefetch), batchesInFlight: batching.batchesInFlight, runtime: runtime
        ) { requests in
            try await batch.handle(requests)
        }
    }

    /// One batch's work: what each request needs before a send, one send of all that may
    /// go, and what follows each result.
    struct Batch: Sendable {
        let platform: Platform
        let routes: Routes
        let policy: RetryPolicy
        let now: @Sendable () -> Date
        let record: SentRecord?
        let sendLimit: Int
        let inFlight: InFlightSends?
        let send: Send
        let logger: Logger
        let suppressed: Counter

        /// What becomes of a request before the send.
        private enum Plan {
            case done([Emission])
            case send
            /// A copy of an earlier request of this batch (its index).
            case copyOf(Int)
            /// A copy of a request another batch is sending.
            case afterOtherBatch
        }

        func handle(_ requests: [DispatchRequest]) async throws -> [[Emission]?] {
            let sentAt = now()
            var plans: [Plan] = []
            plans.reserveCapacity(requests.count)
            var firstOfId: [String: Int] = [:]
            var toSend: [Int] = []
            for (index, request) in requests.enumerated() {
                if let expiresAt = request.expiresAt, expiresAt <= sentAt {
                    count(platform, "expired")
                    plans.append(.done([try .outcome(Outcome(request: request, status: .expired, reason: "expired before attempt \(request.attempt)", at: sentAt), to: routes.outcomes)]))
                } else if let parked = try parked(request, routes: routes, now: sentAt) {
                    plans.append(.done(parked))
                } else if let record, record.contains(request.deliveryId, now: sentAt) {
                    plans.append(.done(try deliveredBefore(request, at: sentAt)))
                } else if let inFlight {
                    if let first = firstOfId[request.deliveryId] {
                        plans.append(.copyOf(first))
                    } else if await inFlight.take(request.deliveryId) {
                        firstOfId[request.deliveryId] = index
                        toSend.append(index)
                        plans.append(.send)
                    } else {
                        plans.append(.afterOtherBatch)
                    }
                } else {
                    toSend.append(index)
                    plans.append(.send)
                }
            }
            var results = [SendResult?](repeating: nil, count: requests.count)
            let contexts = StageTrace.inputs
            for start in stride(from: 0, to: toSend.count, by: sendLimit) {
                let slice = toSend[start..<min(toSend.count, start + sendLimit)]
                let spans = contexts.count == requests.count ? slice.map { ProviderSpan(requests[$0], context: contexts[$0]) } : []
                let answers = await send(slice.map { requests[$0] })
                for (position, index) in slice.enumerated() {
                    let result = position < answers.count ? answers[position] : BatchParts.missing
                    if !spans.isEmpty { spans[position].end(result) }
                    results[index] = result
                    if let record, case .delivered = result { record.insert(requests[index].deliveryId, at: sentAt) }
                    await inFlight?.end(requests[index].deliveryId, result: result)
                }
            }
            let after = now()
            var emissions: [[Emission]?] = []
            emissions.reserveCapacity(requests.count)
            for (index, request) in requests.enumerated() {
                switch plans[index] {
                case .done(let done):
                    emissions.append(done)
                case .send:
                    let result = results[index] ?? BatchParts.missing
                    var these = try DispatchStage.emissions(for: request, result: result, platform: platform, routes: routes, policy: policy, sentAt: sentAt, now: after, logger: logger)
                    if record != nil, case .delivered = result {
                        // Ahead of the outcome: if the outcome fails to go out, the record may not.
                        these.insert(Emission(SentRecord.announcement(request.deliveryId, to: routes.sent)), at: 0)
                    }
                    emissions.append(these)
                case .copyOf(let first):
                    // The first copy reports the send; this one only what the record says.
                    if case .delivered = results[first] ?? BatchParts.missing {
                        emissions.append(try deliveredBefore(request, at: after))
                    } else {
                        suppressed.increment()
                        emissions.append([])
                    }
                case .afterOtherBatch:
                    // Another batch is sending a copy: delivered, it is reported; to be retried,
                    // this copy schedules the same retry, since that batch's may be lost with its
                    // channel (after a failover the broker hands the copy over while the first is
                    // in flight); a retry back twice finds the record once one has delivered.
                    // A failure or revocation is that batch's to report.
                    let result = await inFlight?.waitForEnd(of: request.deliveryId)
                    if let record, record.contains(request.deliveryId, now: now()) {
                        emissions.append(try deliveredBefore(request, at: now()))
                    } else if let result, result.waits {
                        emissions.append(try DispatchStage.emissions(
                            for: request, result: result, platform: platform, routes: routes, policy: policy, sentAt: sentAt, now: now(), logger: logger))
                    } else {
                        suppressed.increment()
                        emissions.append([])
                    }
                }
            }
            return emissions
        }

        /// Delivered before, but that outcome never got out: report it, do not send again.
        private func deliveredBefore(_ request: DispatchRequest, at time: Date) throws -> [Emission] {
            suppressed.increment()
            logger.info("delivered before; not sent again", metadata: ["deliveryId": "\(request.deliveryId)"])
            return [try .outcome(Outcome(request: request, status: .delivered, reason: "delivered before; not sent again", at: time), to: routes.outcomes)]
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
            return [try .outcome(Outcome(request: request, status: .failed, reason: reason, providerCode: code.raw, at: now), to: routes.outcomes)]
        case .expired(let code, let reason):
            count(platform, "expired")
            return [try .outcome(Outcome(request: request, status: .expired, reason: reason, providerCode: code.raw, at: now), to: routes.outcomes)]
        case .revoked(let code, let reason, let invalidSince):
            count(platform, "revoked")
            let revocation = TokenRevoked(
                app: request.app, platform: platform, token: request.token, reason: code.raw, deviceId: request.deviceId,
                failedSendAt: invalidSince.map { min($0, sentAt) } ?? sentAt, deliveryId: request.deliveryId, eventId: request.eventId)
            return [
                try .publish(revocation, to: routes.control, routingKey: HeraldTopology.RoutingKey.tokenRevoked),
                try .outcome(Outcome(request: request, status: .revoked, reason: reason, providerCode: code.raw, at: now), to: routes.outcomes),
            ]
        case .held(let reason, let retryAfter):
            // No attempt was made: the request waits, keeping its attempt count, with no outcome.
            let wait = RetryPolicy.seconds(retryAfter)
            let firstAttemptAt = request.firstAttemptAt ?? sentAt
            let deadline = policy.deadline(firstAttemptAt: request.acceptedAt ?? firstAttemptAt, expiresAt: request.expiresAt)
            guard request.ttlSeconds != 0, now.addingTimeInterval(wait) <= deadline else {
                count(platform, "expired")
                return [try .outcome(Outcome(
                    request: request, status: .expired, reason: "its destination kept failing: \(reason)", at: now), to: routes.outcomes)]
            }
            count(platform, "held")
            let tier = RetryTier.atLeast(seconds: wait)
            logger?.debug("send held", metadata: ["deliveryId": "\(request.deliveryId)", "tier": "\(tier.label)", "reason": "\(reason)"])
            var next = request
            next.firstAttemptAt = firstAttemptAt
            next.notBefore = wait > TimeInterval(tier.seconds) ? now.addingTimeInterval(wait) : nil
            return [try .publish(next, to: routes.retry, routingKey: HeraldTopology.retryRoutingKey(platform, tier))]
        case .retry(let code, let reason, let retryAfter):
            if request.ttlSeconds == 0 {
                // "Now or never": one attempt, as the providers treat a TTL of 0.
                count(platform, "expired")
                return [try .outcome(Outcome(
                    request: request, status: .expired, reason: "TTL of 0 s: tried once, not retried: \(reason)",
                    providerCode: code.raw, at: now), to: routes.outcomes)]
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
                    providerCode: code.raw, at: now), to: routes.outcomes)]
            }
            count(platform, "retried")
            retries[TierKey(platform: platform, tier: tier)].increment()
            logger?.info("send will be retried", metadata: [
                "deliveryId": "\(request.deliveryId)", "attempt": "\(request.attempt)", "code": "\(code.raw)", "tier": "\(tier.label)",
            ])
            var next = request
            next.attempt += 1
            next.firstAttemptAt = firstAttemptAt
            next.notBefore = wait > TimeInterval(tier.seconds) ? now.addingTimeInterval(wait) : nil
            return [
                try .publish(next, to: routes.retry, routingKey: HeraldTopology.retryRoutingKey(platform, tier)),
                try .outcome(Outcome(
                    request: request, status: .retrying, reason: "\(reason); attempt \(next.attempt) " + (next.notBefore.map { "at \(HeraldJSON.formatTimestamp($0))" } ?? "in \(tier.label)"),
                    providerCode: code.raw, at: now), to: routes.outcomes),
            ]
        }
    }

    static func count(_ platform: Platform, _ result: String) {
        results[ResultKey(platform: platform, result: result)].increment()
    }

    struct ResultKey: Hashable, Sendable {
        var platform: Platform
        var result: String
    }

    struct TierKey: Hashable, Sendable {
        var platform: Platform
        var tier: RetryTier
    }

    /// `herald_dispatch_results_total` by platform and result (`delivered`, `failed`,
    /// `revoked`, `retried`, `expired`).
    private static let results = CounterFamily<ResultKey>(label: "herald_dispatch_results_total") {
        [("platform", $0.platform.rawValue), ("result", $0.result)]
    }

    /// `herald_dispatch_retries_total` by platform and the delay tier the retry waits in.
    private static let retries = CounterFamily<TierKey>(label: "herald_dispatch_retries_total") {
        [("platform", $0.platform.rawValue), ("tier", $0.tier.label)]
    }
}
