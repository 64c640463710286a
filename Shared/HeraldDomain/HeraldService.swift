import Foundation
import Messaging
import ServiceKit

/// A Herald executable: a `ServiceRuntime` on Herald's topology (with the dispatch queues of
/// `providers`), dead-lettering to `herald.dead`, and the apps file read and checked.
public enum HeraldService {
    /// Herald's runtime for a service or a test: Herald's topology with `providers`' queues.
    public static func runtime(
        name: String, defaultPort: Int, defaultOpsPort: Int? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        usesBroker: Bool = true, providers: ProviderRegistry, topology: AMQPTopology? = nil
    ) throws -> ServiceRuntime {
        try ServiceRuntime(
            name: name, defaultPort: defaultPort, defaultOpsPort: defaultOpsPort, environment: environment, usesBroker: usesBroker,
            topology: topology ?? HeraldTopology.all(providers), deadLetterExchange: HeraldTopology.Exchange.dead.name)
    }

    /// The whole life of a Herald executable (`ServiceRuntime.main`) serving `providers` and `sources`: `setUp` gets the runtime
    /// and the apps configuration; an apps file that does not hold exits 2 naming the setting.
    /// A service that applies a changed apps file while it runs puts its own `AppsReloader`
    /// in its parts; every other one gets one that starts it again in place.
    public static func main(
        name: String, defaultPort: Int, defaultOpsPort: Int? = nil, usesBroker: Bool = true, providers: ProviderRegistry, sources: SourceRegistry,
        setUp: @escaping (ServiceRuntime, HeraldConfiguration) async throws -> ServiceParts
    ) async -> Never {
        await ServiceRuntime.main(
            name: name, defaultPort: defaultPort, defaultOpsPort: defaultOpsPort, usesBroker: usesBroker,
            topology: HeraldTopology.all(providers), deadLetterExchange: HeraldTopology.Exchange.dead.name
        ) { runtime in
            let configuration = try HeraldConfiguration(environment: runtime.environment, providers: providers, sources: sources)
            runtime.logger.info("apps", metadata: ["apps": "\(configuration.apps.apps.keys.sorted().joined(separator: ","))"])
            var parts = try await setUp(runtime, configuration)
            if !parts.services.contains(where: { $0 is AppsReloader }) {
                parts.services.append(AppsReloader(
                    path: runtime.environment.configPath, providers: providers, sources: sources, service: name, logger: runtime.logger,
                    applying: .restart(runtime.inPlaceRestart, running: configuration)))
            }
            return parts
        }
    }
}
