import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import Logging
import ServiceKit

/// Webhook forwards as a Herald provider: no device registers with it; Registration routes
/// to it every device of an app in webhook mode and every type-3 sponsee, the app's
/// `delivery` settings name the endpoint and its signing secrets, a forward has no size
/// limit, and `herald-webhook` forwards a batch's deliveries concurrently within each
/// destination's limit.
public struct WebhookProvider: DispatchProvider {
    public let platform = Platform.webhook
    public let registersDevices = false
    public let defaultPort = 8086
    public let summary = "consumes dispatch.webhook and forwards each delivery to its app's webhook as a signed Standard Webhooks POST, after checking the addresses the host resolves to"
    public let payloadShape = PayloadShape.forward

    public init() {}

    public func validateSettings(of app: String, _ configuration: AppConfiguration) throws {
        // `delivery` is Herald's own section, checked with the apps file.
    }

    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        // More batch slots than the push providers': a slow tenant holds a batch's
        // acknowledgement until its forwards end or stall.
        DispatchStage.Batching(prefetch: try WebhookSettings.fromEnvironment(environment).prefetch, batchesInFlight: 8)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<WebhookClient> {
        try ProviderDispatcher<WebhookClient>(webhookApps: apps, settings: WebhookSettings.fromEnvironment(environment), logger: logger)
    }
}
