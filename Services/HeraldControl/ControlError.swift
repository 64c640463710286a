/// Why a `heraldctl` command failed, with the exit code scripts can test.
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        /// The input is not what the command takes (an invalid contract, unreadable file).
        case invalidInput
        /// The broker or the gateway could not be reached.
        case unreachable
        /// What was asked for does not exist (an event, a device, a dead letter).
        case notFound
        /// The broker or the gateway refused or failed the request.
        case failed
        /// The operator did not confirm a destructive command.
        case declined
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    /// The process exit code for this failure (documented in `heraldctl --help` and
    /// docs/operations.md): 1 failed, 2 not found, 3 declined, 65 invalid input,
    /// 69 unreachable (the last two as in sysexits.h).
    public var exitCode: Int32 {
        switch reason {
        case .failed: 1
        case .notFound: 2
        case .declined: 3
        case .invalidInput: 65
        case .unreachable: 69
        }
    }
}
