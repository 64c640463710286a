import Foundation
import Logging

/// Where a stateful service keeps its store: SQLite files in its data directory (the
/// default, one process per store) or one PostgreSQL database (any number of replicas),
/// chosen by `HERALD_DATABASE_URL`.
public enum StoreLocation: Sendable, Hashable {
    case sqlite(directory: URL)
    case postgres(PostgresURL)

    /// PostgreSQL when `databaseURL` is set (with `password` instead of the URL's, when
    /// given, and the TLS files), else SQLite in `dataDirectory`.
    public init(
        databaseURL: String?, password: String? = nil, caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
        dataDirectory: URL
    ) throws(StorageError) {
        if let databaseURL, !databaseURL.isEmpty {
            var url = try PostgresURL(databaseURL).with(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile)
            if let password { url.password = password }
            self = .postgres(url)
        } else {
            self = .sqlite(directory: dataDirectory)
        }
    }

    /// The store at this location, opened: a PostgreSQL database connected with the
    /// service's tables in `schema`, or the SQLite directory.
    public func open(schema: String, logger: Logger) async throws -> OpenedStore {
        switch self {
        case .sqlite(let directory): .sqlite(directory: directory)
        case .postgres(let url): .postgres(try await PostgresPool.open(url, logger: logger, schema: schema))
        }
    }
}
