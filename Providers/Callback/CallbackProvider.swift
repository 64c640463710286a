import DispatchKit
import HeraldDomain
import HeraldModel
import Logging
import Webhook

/// Callbacks as a Herald provider: Herald telling an app's integrator what happened (a
/// device revoked), posted to the app's `callbacks` endpoint with the webhook client (the
/// same signing, address guard, retries and per-destination limits), from a queue of its
/// own (`dispatch.callback`, with its own retry tiers) and its own `herald-callback`
/// consumers, so a dead callback endpoint delays no push and no forward. Registration
/// publishes the callbacks; no device registers with it.
public struct CallbackProvider: DispatchProvider {
    public let platform = Platform.callback
    public let registersDevices = false
    /// Only Herald itself sends callbacks: no event's direct token may name this platform.
    public let deliversEvents = false
    public let defaultPort = 8088
    public let summary = "consumes dispatch.callback and posts each callback (a device revoked, a delivery failed, an event completed) to its app's callback endpoint as a signed Standard Webhooks POST"

    public init() {}

    public func validateSettings(of app: String, _ configuration: AppConfiguration) throws {
        // `callbacks` is Herald's own section, checked with the apps file.
    }

    /// As the webhook dispatcher's: a slow endpoint holds a batch's acknowledgement.
    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        try WebhookProvider().batching(environment: environment)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<WebhookClient> {
        let settings = try WebhookSettings.fromEnvironment(environment)
        return try ProviderDispatcher<WebhookClient>(platform: .callback, apps: apps, transport: settings.transport, logger: logger) { app, configuration, transport in
            guard let destination = try WebhookDestination.configured(app: app, configuration.callbacks) else { return nil }
            return WebhookClient(app: app, destination: destination, transport: transport(destination.caFile), purpose: .callbacks, settings: settings)
        }
    }
}
