import Foundation
import ServiceKit

/// How `herald-hms` consumes, from its environment:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HERALD_HMS_PREFETCH` | `1000` | deliveries taken from `dispatch.hms` at once: a batch of them can fill a request of 1,000 tokens |
public struct HMSEnvironment: Sendable, Hashable {
    public var prefetch: UInt16

    public init(prefetch: UInt16 = 1000) {
        self.prefetch = prefetch
    }

    /// Reads the variables; a bad value is a `ConfigurationError` naming it.
    public static func read(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HMSEnvironment {
        let reader = EnvironmentReader(environment)
        var settings = HMSEnvironment()
        if let prefetch = try reader.parse("HERALD_HMS_PREFETCH", expected: "a number from 1 to 65535", {
            UInt16($0).flatMap { $0 > 0 ? $0 : nil }
        }) {
            settings.prefetch = prefetch
        }
        return settings
    }
}
