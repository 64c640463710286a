import PostgresNIO
import ServiceKit

extension PSQLError: ResourceFailure {
    /// The connection failed or was closed, or the server says it cannot work now: a
    /// connection exception (SQLSTATE class 08), insufficient resources (53: a full disk,
    /// too many connections) or an operator intervention (57P01 to 57P03: a shutdown or a
    /// restart). A query the server refuses for what it asks is not.
    public var isResourceUnavailable: Bool {
        switch code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return true
        case .server:
            guard let state = serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("53") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }
}
