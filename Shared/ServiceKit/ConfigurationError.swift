/// A configuration problem, naming the setting and what is wrong with it, so an operator
/// can fix it from the message alone.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case invalidValue
        case missingFile
        case invalidFile
    }

    public var reason: Reason
    /// The environment variable or YAML path at fault, e.g. `HERALD_HTTP_PORT` or `apps.demo.fcm`.
    public var setting: String
    public var message: String

    public init(_ reason: Reason, setting: String, _ message: String) {
        self.reason = reason
        self.setting = setting
        self.message = message
    }

    public var description: String { "\(setting): \(message)" }
}
