import WebPush
import HeraldModel
import ProviderEmulation

/// WebPush's stand-in in herald-sandbox: the emulator it runs and the settings the demo app sends
/// through it with. `HeraldEmulators` lists it; `herald` does not link this module.
public struct EmulatedWebPush: EmulatedProvider {
    public init() {}

    public var platform: Platform { WebPushProvider().platform }

    public var demoSettings: KeyValuePairs<String, any Sendable> {
        [
            "vapidPrivateKeyFile": "${sandboxDir}/webpush-vapid.pem",
            "subject": "mailto:demo@herald.example",
            "caFile": "${sandboxDir}/ca.pem",
            "allowPrivateNetworks": true,
        ]
    }

    public var demoHint: String? {
        "curl -s -X POST ${sandbox}/webpush/subscriptions   # a browser's subscription: PUT it to /devices/{id} as {\"platform\":\"webpush\",\"subscription\":…}"
    }

    public func makeEmulator(_ context: EmulatorContext) throws -> any ProviderEmulator {
        WebPushEmulator(context)
    }
}
