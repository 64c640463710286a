// herald-registration: the device registry. Resolves each event into one delivery per device,
// applies token revocations, records what became of each delivery, and answers the gateway's device, key and sponsee commands.
import HeraldModel
import HeraldStorage
import Registry
import ServiceKit

await ServiceRuntime.main(name: "herald-registration", defaultPort: 8081) { runtime in
    let location: StoreLocation
    do {
        location = try StoreLocation(
            databaseURL: runtime.environment.databaseURL, password: runtime.environment.databasePassword,
            dataDirectory: runtime.environment.dataDirectory)
    } catch {
        throw ConfigurationError(.invalidValue, setting: "HERALD_DATABASE_URL", "\(error)")
    }
    let database = try await location.openDatabase(schema: "registration", logger: runtime.logger)
    let store = try await RegistrationStores.open(location, database: database)
    return ServiceParts(clients: database.map { [$0] } ?? [], services: [
        RegistrationStages.resolving(runtime: runtime, store: store),
        RegistrationStages.revoking(runtime: runtime, store: store),
        RegistrationStages.recordingOutcomes(runtime: runtime, store: store),
        DeadLetterReporter(runtime: runtime),
        CommandServer(queue: HeraldTopology.CommandQueue.registration, runtime: runtime, handler: RegistrationCommands(store: store).handle),
        RegistrationPruner(store: store, logger: runtime.logger),
    ])
}
