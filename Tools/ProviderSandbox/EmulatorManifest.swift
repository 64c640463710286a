import Foundation
import HeraldEmulators
import JSONKit

/// What `herald-sandbox --manifest` prints: each emulated provider's platform, the demo app's
/// settings for it and what to try. `scripts/generate` merges it into herald's manifest (whose
/// binary links no emulator) to write the demo stack's apps files and scripts/run's hints.
public enum EmulatorManifest {
    /// The manifest as a JSON object.
    public static func json(_ emulated: [any EmulatedProvider] = HeraldEmulators.all) -> [String: Any] {
        ["emulators": emulated.map(\.manifestEntry)]
    }

    /// The manifest as pretty-printed JSON with sorted keys, ending in a newline.
    public static func text(_ emulated: [any EmulatedProvider] = HeraldEmulators.all) throws -> String {
        try JSONValue(any: json(emulated)).prettyText + "\n"
    }
}
