import Foundation
import ServiceKit

extension ServiceRuntime {
    /// Where this stateful service keeps its store (`HERALD_DATABASE_URL`, else SQLite in
    /// `HERALD_DATA_DIR`) and, for PostgreSQL, the database connected with the service's
    /// tables in `schema`. A bad URL is a configuration error naming the variable.
    public func openStore(schema: String) async throws -> (location: StoreLocation, database: PostgresPool?) {
        let location: StoreLocation
        do {
            location = try StoreLocation(databaseURL: environment.databaseURL, password: environment.databasePassword, dataDirectory: environment.dataDirectory)
        } catch {
            throw ConfigurationError(.invalidValue, setting: "HERALD_DATABASE_URL", error.message)
        }
        return (location, try await location.openDatabase(schema: schema, logger: logger))
    }
}
