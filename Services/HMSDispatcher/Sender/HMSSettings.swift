import Foundation
import ServiceKit

/// How `herald-hms` gathers and consumes, from its environment:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HERALD_HMS_MULTICAST_WINDOW_MS` | `20` | how long a plain delivery waits for others of the same event to share its request; `0` sends each alone |
/// | `HERALD_HMS_PREFETCH` | `1000` | deliveries taken from `dispatch.hms` at once, so a window can fill a request of 1,000 tokens |
public struct HMSSettings: Sendable, Hashable {
    public var multicastWindow: Duration
    public var prefetch: UInt16

    public init(multicastWindow: Duration = .milliseconds(20), prefetch: UInt16 = 1000) {
        self.multicastWindow = multicastWindow
        self.prefetch = prefetch
    }

    /// Reads the variables; a bad value is a `ConfigurationError` naming it.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HMSSettings {
        let reader = EnvironmentReader(environment)
        var settings = HMSSettings()
        if let milliseconds = try reader.parse("HERALD_HMS_MULTICAST_WINDOW_MS", expected: "a whole number of milliseconds from 0 to 10000", {
            Int($0).flatMap { (0...10_000).contains($0) ? $0 : nil }
        }) {
            settings.multicastWindow = .milliseconds(milliseconds)
        }
        if let prefetch = try reader.parse("HERALD_HMS_PREFETCH", expected: "a number from 1 to 65535", {
            UInt16($0).flatMap { $0 > 0 ? $0 : nil }
        }) {
            settings.prefetch = prefetch
        }
        return settings
    }
}
