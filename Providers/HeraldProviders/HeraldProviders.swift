import APNs
import Callback
import DispatchKit
import FCM
import HeraldDomain
import HMS
import Webhook

/// The providers Herald runs, a provider module's descriptor each: the one list every service
/// reads (the gateway's platforms, the topology's queues, the encryption stage's size rules,
/// heraldctl) and the multi-call `herald`'s dispatchers. Nothing else names them all.
public enum HeraldProviders {
    public static let dispatchers: [any DispatchProvider] = [
        FCMProvider(),
        HMSProvider(),
        WebhookProvider(),
        APNsProvider(),
        CallbackProvider(),
    ]
}

extension ProviderRegistry {
    /// Herald's own registry: `HeraldProviders.dispatchers`.
    public static let herald = ProviderRegistry(HeraldProviders.dispatchers.map { $0 as any ProviderDescriptor })
}
