// herald-webhook: consumes dispatch.webhook and forwards each delivery to its app's webhook
// (webhook-mode apps, and type-3 sponsees to the sponsor's endpoint) as a signed Standard
// Webhooks POST, after checking the addresses the host resolves to; outcomes, revocations
import HeraldServices

await HeraldExecutable.webhook.main()
