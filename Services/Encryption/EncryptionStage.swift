import Foundation
import HeraldDomain
import HeraldModel
import Messaging
import Metrics
import ServiceKit

/// herald-encryption's stage: consumes allowed deliveries, lets `PayloadBuilder` decide each
/// one, and emits the dispatch request to `herald.dispatch` under the platform, or an
/// outcome (`failed`, `expired`) when the delivery cannot be sent.
public enum EncryptionStage {
    /// Herald's routes: `encryption.allowed` in, `herald.dispatch` out.
    public static let routes = StageRoutes(input: HeraldTopology.Queue.encryptionAllowed, output: HeraldTopology.Exchange.dispatch)

    public static func make(
        runtime: ServiceRuntime, herald: HeraldConfiguration, routes: StageRoutes = EncryptionStage.routes, prefetch: UInt16 = 256
    ) -> Stage<Delivery> {
        let builder = PayloadBuilder(apps: herald.apps, providers: herald.providers, sources: herald.sources)
        // Every series of the registry's platforms from the start, at zero.
        for platform in herald.providers.platforms {
            for variant in DataMap.Variant.allCases {
                for scheme in ["none", "aes128gcm", "jwe"] { _ = PayloadMetrics.built[PayloadMetrics.Key(platform: platform, variant: variant, scheme: scheme)] }
            }
        }
        return Stage(consuming: routes.input, prefetch: prefetch, runtime: runtime) { delivery in
            try emissions(for: delivery, builder: builder, routes: routes, now: Date())
        }
    }

    /// What the stage publishes for one delivery.
    public static func emissions(for delivery: Delivery, builder: PayloadBuilder, routes: StageRoutes = EncryptionStage.routes, now: Date) throws -> [Emission] {
        switch builder.build(delivery, now: now) {
        case .dispatch(let request, let variant, let scheme):
            PayloadMetrics.built[PayloadMetrics.Key(platform: request.platform, variant: variant, scheme: scheme ?? "none")].increment()
            // Expires at the broker with the delivery, so that a platform no dispatcher serves
            // is reported (`DeadLetterReporter`) instead of waiting in its queue.
            return [try Emission.publish(request, to: routes.output, routingKey: request.platform.rawValue).expiring(at: request.expiresAt, now: now)]
        case .expired(let reason):
            PayloadMetrics.expired.increment()
            return [try .outcome(Outcome(delivery: delivery, status: .expired, reason: reason, at: now), to: routes.outcomes)]
        case .failed(let failure):
            PayloadMetrics.failed[failure.reason]?.increment()
            return [try .outcome(Outcome(delivery: delivery, status: .failed, reason: failure.message, at: now), to: routes.outcomes)]
        }
    }
}

/// The encryption stage's counters, made once.
enum PayloadMetrics {
    struct Key: Hashable, Sendable {
        var platform: Platform
        var variant: DataMap.Variant
        var scheme: String
    }

    /// `herald_payloads_total` by platform, variant and scheme (`none`, `aes128gcm`, `jwe`).
    static let built = CounterFamily<Key>(label: "herald_payloads_total") {
        [("platform", $0.platform.rawValue), ("variant", $0.variant.rawValue), ("scheme", $0.scheme)]
    }

    static let expired = Counter(label: "herald_payload_failures_total", dimensions: [("reason", "expired")])

    static let failed: [PayloadFailure.Reason: Counter] = Dictionary(uniqueKeysWithValues: PayloadFailure.Reason.allCases.map {
        ($0, Counter(label: "herald_payload_failures_total", dimensions: [("reason", $0.rawValue)]))
    })
}
