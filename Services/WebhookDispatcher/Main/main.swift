// herald-webhook: consumes dispatch.webhook and forwards each delivery to its app's webhook
// (webhook-mode apps, and type-3 sponsees to the sponsor's endpoint) as a signed Standard
// Webhooks POST, after checking the addresses the host resolves to; outcomes, revocations
// (410) and broker-scheduled retries follow.
import DispatchKit
import ServiceKit
import WebhookSender

await ServiceRuntime.main(name: "herald-webhook", defaultPort: 8086) { runtime in
    let settings = try WebhookSettings.fromEnvironment()
    let dispatcher = try WebhookDispatcher(webhookApps: runtime.apps, settings: settings, logger: runtime.logger)
    return ServiceParts(
        clients: dispatcher.transports,
        services: DispatchStage.services(runtime: runtime, platform: .webhook, prefetch: settings.prefetch, send: dispatcher.send))
}
