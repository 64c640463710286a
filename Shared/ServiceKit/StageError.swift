/// What a stage handler throws to say how its input failed. `rejected` inputs can never
/// succeed and go to the dead letters with the reason; `transient` ones are retried a
/// bounded number of times; `unavailable` says the service itself cannot work now (its
/// store's disk is full, its database or broker does not answer), which is no fault of the
/// input: it is retried for as long as that lasts, its attempts not counted. Any other
/// error counts as transient, unless it is a `ResourceFailure` saying it is unavailable.
public struct StageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case rejected, transient, unavailable
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public static func rejected(_ message: String) -> StageError { StageError(.rejected, message) }
    public static func transient(_ message: String) -> StageError { StageError(.transient, message) }
    public static func unavailable(_ message: String) -> StageError { StageError(.unavailable, message) }

    public var description: String { "\(reason.rawValue): \(message)" }
}
