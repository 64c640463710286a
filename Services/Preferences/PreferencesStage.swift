import Foundation
import HeraldDomain
import HeraldModel
import Messaging
import Metrics
import ServiceKit

/// herald-preferences' filter stage: consumes resolved deliveries and passes each one on to
/// `herald.deliveries` / `allowed`, or turns it into outcome `filtered` naming the level.
public enum PreferencesStage {
    /// Herald's routes: `preferences.resolved` in, `herald.deliveries` out.
    public static let routes = StageRoutes(input: HeraldTopology.Queue.preferencesResolved, output: HeraldTopology.Exchange.deliveries)

    public static func make(
        runtime: ServiceRuntime, apps: AppsConfiguration, store: PreferenceStore, routes: StageRoutes = PreferencesStage.routes, prefetch: UInt16 = 256
    ) -> Stage<Delivery> {
        let criticalKinds = apps.apps.mapValues { Set($0.criticalKinds) }
        let optIn = apps.apps.mapValues { Set($0.optInServices) }
        let allowed = Counter(label: "herald_preferences_decisions_total", dimensions: [("result", "allowed")])
        let filtered = Dictionary(uniqueKeysWithValues: FilterLevel.allCases.map {
            ($0, Counter(label: "herald_preferences_decisions_total", dimensions: [("result", "filtered"), ("level", $0.rawValue)]))
        })
        return Stage(consuming: routes.input, prefetch: prefetch, runtime: runtime) { delivery in
            let critical = delivery.options.critical || criticalKinds[delivery.app]?.contains(delivery.kind) == true
            switch store.decide(delivery, critical: critical, optIn: optIn[delivery.app] ?? Set(AppConfiguration.defaultOptInServices)) {
            case .allow:
                allowed.increment()
                return [try .publish(delivery, to: routes.output, routingKey: HeraldTopology.RoutingKey.allowed)]
            case .filter(let level):
                filtered[level]?.increment()
                let outcome = Outcome(delivery: delivery, status: .filtered, reason: "filtered by \(level.rawValue)", at: Date())
                return [try .outcome(outcome, to: routes.outcomes)]
            }
        }
    }
}
