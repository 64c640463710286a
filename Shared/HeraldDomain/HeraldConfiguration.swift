import ServiceKit

/// What a Herald service reads beyond its runtime's environment: the apps file, checked
/// against the providers the deployment runs (each provider's section of every app, with
/// the errors naming the setting).
public struct HeraldConfiguration: Sendable {
    public let apps: AppsConfiguration
    /// The providers this deployment runs: the platforms of the topology, the sections of
    /// the apps file that are checked.
    public let providers: ProviderRegistry

    /// `apps` for `providers`. Throws `ConfigurationError` for a provider section that does not hold.
    public init(apps: AppsConfiguration = AppsConfiguration(), providers: ProviderRegistry = ProviderRegistry()) throws {
        try providers.validate(apps)
        self.apps = apps
        self.providers = providers
    }

    /// The apps file `HERALD_CONFIG` names (none: no apps), for `providers`.
    public init(environment: ServiceEnvironment, providers: ProviderRegistry) throws {
        try self.init(apps: environment.configPath.map(AppsConfiguration.load(path:)) ?? AppsConfiguration(), providers: providers)
    }
}
