import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldStorage
import Preferences
import ServiceKit

/// herald-preferences: decides for each resolved delivery whether the user wants it (network,
/// user, channel, kind and device rules), and answers the gateway's preference commands.
enum PreferencesService {
    static func main(_ executable: HeraldExecutable) async {
        await HeraldService.main(name: executable.name, defaultPort: executable.defaultPort, defaultOpsPort: executable.defaultOpsPort, providers: .herald, sources: .herald, setUp: setUp)
    }

    @Sendable static func setUp(_ runtime: ServiceRuntime, _ herald: HeraldConfiguration) async throws -> ServiceParts {
        let opened = try await runtime.openStore(schema: "preferences")
        let storage = try await PreferenceStores.storage(opened)
        // Replicas share a PostgreSQL database: each tells the others what it changed.
        var announce: (@Sendable (PreferenceEntry.Key) async -> Void)?
        if opened.isShared {
            announce = { key in await PreferenceChanges.announce(key, runtime: runtime) }
        }
        let store = try await PreferenceStore(storage: storage, announce: announce)
        var services: [any Service] = [
            PreferencesStage.make(runtime: runtime, apps: herald.apps, store: store),
            CommandServer(queue: HeraldTopology.CommandQueue.preferences, runtime: runtime, handler: PreferenceCommands(store: store).handle),
        ]
        if opened.isShared { services.append(PreferenceChanges(store: store, runtime: runtime)) }
        return ServiceParts(clients: opened.clients, services: services)
    }
}
