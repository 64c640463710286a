import DispatchKit
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// Push Kit for every app of the configuration: a `HMSClient` for each app with its settings.
extension ProviderDispatcher where Client == HMSClient {
    /// Reads every app's client secret; throws `ConfigurationError` naming the app's setting.
    public init(hmsApps apps: AppsConfiguration, streams: Int = 100, logger: Logger) throws {
        try self.init(
            platform: .hms, apps: apps, transport: HTTPTransportConfiguration(name: "hms", maxConcurrentStreams: streams), logger: logger
        ) { app, configuration, transport in
            guard let hms = try configuration.settings(HMSSettings.self, app: app) else { return nil }
            let secret = try SecretFile.text(hms.clientSecretFile, setting: "apps.\(app).hms.clientSecretFile")
            return HMSClient(
                app: app, appId: hms.appId, clientId: hms.clientId, clientSecret: secret,
                endpoint: hms.endpoint, tokenEndpoint: hms.tokenEndpoint, transport: transport(hms.caFile))
        }
    }
}
