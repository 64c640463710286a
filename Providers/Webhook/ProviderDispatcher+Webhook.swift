import DispatchKit
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// Webhook forwards for every app of the configuration: a `WebhookClient` for each app with its settings.
extension ProviderDispatcher where Client == WebhookClient {
    /// Reads every app's signing secrets; throws `ConfigurationError` naming the app's setting.
    public init(webhookApps apps: AppsConfiguration, settings: WebhookSettings = WebhookSettings(), resolver: any HostResolver = SystemHostResolver(), logger: Logger) throws {
        try self.init(platform: .webhook, apps: apps, transport: settings.transport, logger: logger) { app, configuration, transport in
            guard let destination = try WebhookDestination.configured(app: app, configuration.delivery) else { return nil }
            return WebhookClient(app: app, destination: destination, transport: transport(destination.caFile), settings: settings, resolver: resolver)
        }
    }
}
