import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs `query` and returns its rows, or fails as unavailable if the server has ended the
    /// connection. The query is handed over on the connection's event loop after checking
    /// there that it is still open: postgres-nio 1.33 drops a query written to a connection
    /// whose channel has closed and never answers it, so a lease the pool gave out just before
    /// it heard of the close would wait forever (seen after `pg_terminate_backend`, and so
    /// after any server restart).
    @discardableResult
    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> [PostgresRow] {
        try await eventLoop.flatSubmit { [self] () -> EventLoopFuture<PostgresQueryResult> in
            guard !isClosed else {
                return eventLoop.makeFailedFuture(StorageError("the PostgreSQL server ended the connection", unavailable: true))
            }
            return self.query(query, logger: logger, file: file, line: line)
        }.get().rows
    }
}

extension Array where Element == PostgresRow {
    /// Each row decoded as `columns` (the rows `run` and `PostgresPool.query` return).
    public func decode<each Column: PostgresDecodable>(_ columns: (repeat each Column).Type, file: String = #fileID, line: Int = #line) throws -> [(repeat each Column)] {
        try map { try $0.decode(columns, file: file, line: line) }
    }
}
