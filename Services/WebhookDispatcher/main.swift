// herald-webhook: consumes dispatch.webhook and forwards each delivery to its app's webhook
// (webhook-mode apps, and type-3 sponsees to the sponsor's endpoint) as a signed Standard
// Webhooks POST, after checking the addresses the host resolves to; outcomes, revocations
// (410) and broker-scheduled retries follow.
import DispatchKit
import HeraldProviders
import Webhook

await DispatcherService.main(WebhookProvider(), registry: .herald)
