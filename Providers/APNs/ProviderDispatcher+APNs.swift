import DispatchKit
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// APNs for every app of the configuration: an `APNsClient` for each app with an `apns`
/// section.
extension ProviderDispatcher where Client == APNsClient {
    /// Reads every app's signing key; throws `ConfigurationError` naming the app's setting.
    public init(apnsApps apps: AppsConfiguration, streams: Int = 100, logger: Logger) throws {
        try self.init(
            platform: .apns, apps: apps, transport: HTTPTransportConfiguration(name: "apns", maxConcurrentStreams: streams), logger: logger
        ) { app, configuration, transport in
            guard let apns = try configuration.settings(APNsSettings.self, app: app) else { return nil }
            let key = try APNsSigningKey.load(path: apns.keyFile, teamId: apns.teamId, keyId: apns.keyId, setting: "apps.\(app).apns.keyFile")
            return APNsClient(app: app, settings: apns, key: key, transport: transport(apns.caFile), logger: logger)
        }
    }
}
