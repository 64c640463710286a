import Foundation
import HeraldStorage
import Logging

/// Opens the registry where the service is configured to keep it.
public enum RegistrationStores {
    /// SQLite in the data directory, or PostgreSQL on `database` (which the caller runs as a
    /// service, so it closes after the stages).
    public static func open(_ location: StoreLocation, database: PostgresPool?) async throws -> any RegistrationStore {
        switch location {
        case .sqlite(let directory):
            return try SQLiteRegistrationStore(directory: directory)
        case .postgres:
            guard let database else { throw StorageError("a PostgreSQL store needs its database opened") }
            return try await PostgresRegistrationStore(database: database)
        }
    }
}
