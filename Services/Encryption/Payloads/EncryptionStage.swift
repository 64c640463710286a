import Foundation
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

    public static func make(runtime: ServiceRuntime, routes: StageRoutes = EncryptionStage.routes, prefetch: UInt16 = 256) -> Stage<Delivery> {
        let builder = PayloadBuilder(apps: runtime.apps)
        return Stage(consuming: routes.input, prefetch: prefetch, runtime: runtime) { delivery in
            try emissions(for: delivery, builder: builder, routes: routes, now: Date())
        }
    }

    /// What the stage publishes for one delivery.
    public static func emissions(for delivery: Delivery, builder: PayloadBuilder, routes: StageRoutes = EncryptionStage.routes, now: Date) throws -> [Emission] {
        switch builder.build(delivery, now: now) {
        case .dispatch(let request, let variant, let scheme):
            Counter(label: "herald_payloads_total", dimensions: [
                ("platform", request.platform.rawValue), ("variant", variant.rawValue), ("scheme", scheme ?? "none"),
            ]).increment()
            return [try .publish(request, to: routes.output, routingKey: request.platform.rawValue)]
        case .expired(let reason):
            Counter(label: "herald_payload_failures_total", dimensions: [("reason", "expired")]).increment()
            return [try .outcome(Outcome(delivery: delivery, status: .expired, reason: reason, at: now), to: routes.outcomes)]
        case .failed(let failure):
            Counter(label: "herald_payload_failures_total", dimensions: [("reason", failure.reason.rawValue)]).increment()
            return [try .outcome(Outcome(delivery: delivery, status: .failed, reason: failure.message, at: now), to: routes.outcomes)]
        }
    }
}
