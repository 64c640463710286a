import Messaging

/// An error of one of the service's own resources (its store, its database, its broker)
/// that can say whether the resource is unavailable for now (a full disk, a database that
/// does not answer, a lost connection) rather than refusing this piece of work. A stage
/// waits such a failure out instead of counting it against the input (`StageError`).
/// HeraldStorage conforms the SQLite and PostgreSQL errors to it.
public protocol ResourceFailure: Error {
    /// True when the resource cannot serve anything now and may again later.
    var isResourceUnavailable: Bool { get }
}

extension MessagingError: ResourceFailure {
    /// The broker could not be reached, the connection was lost, or the broker refused a
    /// publish (`basic.nack`: a queue at its length limit, or a quorum queue without a
    /// leader while a node is down). None of these is the fault of the message.
    public var isResourceUnavailable: Bool {
        reason == .connectionFailed || reason == .connectionLost || reason == .publishRejected
    }
}

extension StageError {
    /// Whether `error` says the service cannot work now (`unavailable`, or a resource
    /// failure saying so), as opposed to a failure of the input.
    public static func isUnavailable(_ error: any Error) -> Bool {
        if let error = error as? StageError { return error.reason == .unavailable }
        if let error = error as? any ResourceFailure { return error.isResourceUnavailable }
        return false
    }
}
