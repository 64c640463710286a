import Foundation
import HeraldStorage

/// Opens the preference storage in the service's store.
public enum PreferenceStores {
    /// The storage on SQLite files, or on the PostgreSQL database (which the service runs
    /// as a client, so it closes after the stages).
    public static func storage(_ store: OpenedStore) async throws -> any PreferenceStorage {
        switch store {
        case .sqlite(let directory): try SQLitePreferenceStorage(directory: directory)
        case .postgres(let database): try await PostgresPreferenceStorage(database: database)
        }
    }
}
