import APNs
import Callback
import FCM
import HeraldDomain
import HMS
import Webhook

extension ProviderRegistry {
    /// The providers Herald runs: a provider module's descriptor, one line each. Every
    /// service reads this list (the gateway's platforms, the topology's queues, the
    /// encryption stage's size rules, heraldctl); nothing else names them all.
    public static let herald = ProviderRegistry([
        FCMProvider(),
        HMSProvider(),
        WebhookProvider(),
        APNsProvider(),
        CallbackProvider(),
    ])
}
