import Foundation
import HeraldDomain
import HeraldModel
import Logging
import ServiceKit

/// The dispatcher's part of a provider module's descriptor: what `herald-<platform>` runs.
/// With it, a provider's executable is one line (`DispatcherService.main`).
public protocol DispatchProvider: ProviderDescriptor {
    associatedtype Client: ProviderClient
    /// The port of the dispatcher's health and metrics.
    var defaultPort: Int { get }
    /// How the dispatch stage takes its queue, from the dispatcher's environment; a bad
    /// value is a `ConfigurationError` naming its variable.
    func batching(environment: [String: String]) throws -> DispatchStage.Batching
    /// A client for each app of `apps` that uses the provider; configuration errors stop
    /// the dispatcher at start, naming the app's setting.
    func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<Client>
}

/// The whole of a provider's dispatcher executable.
public enum DispatcherService {
    /// Runs `herald-<platform>` for `provider` until SIGTERM, with the providers of
    /// `registry` in its topology and its apps file checked against them and `sources`.
    public static func main<Provider: DispatchProvider>(_ provider: Provider, registry: ProviderRegistry, sources: SourceRegistry) async -> Never {
        await HeraldService.main(name: provider.executableName, defaultPort: provider.defaultPort, providers: registry, sources: sources) { runtime, herald in
            try parts(provider, runtime: runtime, apps: herald.apps)
        }
    }

    /// The dispatcher's parts on `runtime` for `apps`: its clients' transports, the dispatch
    /// stage and the follower of the replica set's sent record.
    public static func parts<Provider: DispatchProvider>(
        _ provider: Provider, runtime: ServiceRuntime, apps: AppsConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceParts {
        let dispatcher = try provider.dispatcher(apps: apps, environment: environment, logger: runtime.logger)
        return ServiceParts(
            clients: dispatcher.transports,
            services: DispatchStage.services(
                runtime: runtime, platform: provider.platform, batching: try provider.batching(environment: environment), send: dispatcher.send))
    }
}
