import HMS
import HeraldModel
import ProviderEmulation

/// HMS's stand-in in herald-sandbox: the emulator it runs and the settings the demo app sends
/// through it with. `HeraldEmulators` lists it; `herald` does not link this module.
public struct EmulatedHMS: EmulatedProvider {
    public init() {}

    public var platform: Platform { HMSProvider().platform }

    public var demoSettings: KeyValuePairs<String, any Sendable> {
        [
            "appId": HMSEmulator.demoClientId,
            "clientId": HMSEmulator.demoClientId,
            "clientSecretFile": "${sandboxDir}/hms-client-secret",
            "endpoint": "${sandboxURL}",
            "tokenEndpoint": "${sandboxURL}/oauth2/v3/token",
            "caFile": "${sandboxDir}/ca.pem",
        ]
    }

    public func makeEmulator(_ context: EmulatorContext) throws -> any ProviderEmulator {
        HMSEmulator(context)
    }
}
