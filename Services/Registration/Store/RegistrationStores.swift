import Foundation
import HeraldStorage
import Logging

/// Opens Registration's store.
public enum RegistrationStores {
    /// The store on SQLite files, or on the PostgreSQL database (which the service runs
    /// as a client, so it closes after the stages).
    public static func open(_ store: OpenedStore) async throws -> any RegistrationStore {
        switch store {
        case .sqlite(let directory): try SQLiteRegistrationStore(directory: directory)
        case .postgres(let database): try await PostgresRegistrationStore(database: database)
        }
    }
}
