import APNs
import HeraldModel
import ProviderEmulation

/// APNs's stand-in in herald-sandbox: the emulator it runs and the settings the demo app sends
/// through it with. `HeraldEmulators` lists it; `herald` does not link this module.
public struct EmulatedAPNs: EmulatedProvider {
    public init() {}

    public var platform: Platform { APNsProvider().platform }

    public var demoSettings: KeyValuePairs<String, any Sendable> {
        [
            "teamId": APNsEmulator.demoTeamId,
            "keyId": APNsEmulator.demoKeyId,
            "keyFile": "${sandboxDir}/apns-key.p8",
            "topic": APNsEmulator.demoTopic,
            "environment": "development",
            "endpoint": "${sandboxURL}",
            "caFile": "${sandboxDir}/ca.pem",
        ]
    }

    public func makeEmulator(_ context: EmulatorContext) throws -> any ProviderEmulator {
        try APNsEmulator(context)
    }
}
