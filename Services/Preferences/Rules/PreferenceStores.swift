import Foundation
import HeraldStorage

/// Opens the preference storage where the service is configured to keep it.
public enum PreferenceStores {
    /// SQLite in the data directory, or PostgreSQL on `database` (which the caller runs as a
    /// service, so it closes after the stages).
    public static func storage(_ location: StoreLocation, database: PostgresPool?) async throws -> any PreferenceStorage {
        switch location {
        case .sqlite(let directory):
            return try SQLitePreferenceStorage(directory: directory)
        case .postgres:
            guard let database else { throw StorageError("a PostgreSQL store needs its database opened") }
            return try await PostgresPreferenceStorage(database: database)
        }
    }
}
