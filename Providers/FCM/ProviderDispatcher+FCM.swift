import DispatchKit
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// FCM for every app of the configuration: a `FCMClient` for each app with its settings.
extension ProviderDispatcher where Client == FCMClient {
    /// Reads every app's service account; throws `ConfigurationError` naming the app's setting.
    public init(fcmApps apps: AppsConfiguration, streams: Int = 100, logger: Logger) throws {
        try self.init(
            platform: .fcm, apps: apps, transport: HTTPTransportConfiguration(name: "fcm", maxConcurrentStreams: streams), logger: logger
        ) { app, configuration, transport in
            guard let fcm = try configuration.settings(FCMSettings.self, app: app) else { return nil }
            let setting = "apps.\(app).fcm.serviceAccountFile"
            let account = try FCMServiceAccount.load(path: fcm.serviceAccountFile, setting: setting)
            do {
                _ = try FCMOAuth.assertion(for: account)
            } catch {
                throw ConfigurationError(.invalidFile, setting: setting, "\(error)")
            }
            return FCMClient(app: app, account: account, endpoint: fcm.endpoint, transport: transport(fcm.caFile))
        }
    }
}
