/// An error whose description does not say what went wrong gives a summary instead, for logs
/// and dead-letter reasons: postgres-nio's `PSQLError` describes itself with one generic
/// sentence, by design (its details may hold the query's values).
public protocol SummarizedError: Error {
    /// What went wrong, specific enough to act on, without values that could be sensitive.
    var summary: String { get }
}

/// What logs and dead-letter reasons say of `error`: its summary when it has one, else its
/// description.
public func summary(of error: any Error) -> String {
    (error as? any SummarizedError)?.summary ?? "\(error)"
}
