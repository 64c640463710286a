import FCM
import HeraldModel
import ProviderEmulation

/// FCM's stand-in in herald-sandbox: the emulator it runs and the settings the demo app sends
/// through it with. `HeraldEmulators` lists it; `herald` does not link this module.
public struct EmulatedFCM: EmulatedProvider {
    public init() {}

    public var platform: Platform { FCMProvider().platform }

    public var demoSettings: KeyValuePairs<String, any Sendable> {
        [
            "serviceAccountFile": "${sandboxDir}/fcm-service-account.json",
            "endpoint": "${sandboxURL}",
            "caFile": "${sandboxDir}/ca.pem",
        ]
    }

    public func makeEmulator(_ context: EmulatorContext) throws -> any ProviderEmulator {
        try FCMEmulator(context)
    }
}
