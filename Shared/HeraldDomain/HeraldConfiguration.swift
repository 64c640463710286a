import ServiceKit

/// What a Herald service reads beyond its runtime's environment: the apps file, checked
/// against the providers the deployment runs (each provider's section of every app, with
/// the errors naming the setting).
public struct HeraldConfiguration: Sendable {
    public let apps: AppsConfiguration
    /// The providers this deployment runs: the platforms of the topology, the sections of
    /// the apps file that are checked.
    public let providers: ProviderRegistry
    /// The upstream integrations it serves: the gateway's source routes, their presentation,
    /// templates and default TTLs.
    public let sources: SourceRegistry

    /// `apps` for `providers` and `sources`. Throws `ConfigurationError` for a provider
    /// section, or a source's setting, that does not hold.
    public init(apps: AppsConfiguration = AppsConfiguration(), providers: ProviderRegistry = ProviderRegistry(), sources: SourceRegistry) throws {
        try providers.validate(apps)
        try sources.validate(apps)
        self.apps = apps
        self.providers = providers
        self.sources = sources
    }

    /// The apps file `HERALD_CONFIG` names (none: no apps), for `providers` and `sources`.
    public init(environment: ServiceEnvironment, providers: ProviderRegistry, sources: SourceRegistry) throws {
        try self.init(apps: environment.configPath.map(AppsConfiguration.load(path:)) ?? AppsConfiguration(), providers: providers, sources: sources)
    }
}
