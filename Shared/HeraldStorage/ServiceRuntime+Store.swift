import Foundation
import ServiceKit

extension ServiceRuntime {
    /// Opens this stateful service's store where it is configured: PostgreSQL when
    /// `HERALD_DATABASE_URL` is set (connected, with the service's tables in `schema`), else
    /// SQLite in `HERALD_DATA_DIR`. A bad URL is a configuration error naming the variable.
    public func openStore(schema: String) async throws -> OpenedStore {
        let location: StoreLocation
        do {
            location = try StoreLocation(
                databaseURL: environment.databaseURL, password: environment.databasePassword, caFile: environment.databaseCAFile,
                certificateFile: environment.databaseCertificateFile, keyFile: environment.databaseKeyFile, dataDirectory: environment.dataDirectory)
        } catch {
            throw ConfigurationError(.invalidValue, setting: "HERALD_DATABASE_URL", error.message)
        }
        return try await location.open(schema: schema, logger: logger)
    }
}
