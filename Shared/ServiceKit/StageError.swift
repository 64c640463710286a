/// What a stage handler throws to say how its input failed. `rejected` inputs can never
/// succeed and go to the dead letters with the reason; `transient` ones are retried a
/// bounded number of times. Any other error counts as transient.
public struct StageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case rejected, transient
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public static func rejected(_ message: String) -> StageError { StageError(.rejected, message) }
    public static func transient(_ message: String) -> StageError { StageError(.transient, message) }

    public var description: String { "\(reason.rawValue): \(message)" }
}
