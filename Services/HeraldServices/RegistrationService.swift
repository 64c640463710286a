import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldStorage
import Registration
import ServiceKit

/// herald-registration: the devices' store. Resolves each event into one delivery per device,
/// applies token revocations, records what became of each delivery, and answers the gateway's
/// device, key and sponsee commands.
enum RegistrationService {
    static func main(_ executable: HeraldExecutable) async {
        await HeraldService.main(name: executable.name, defaultPort: executable.defaultPort, defaultOpsPort: executable.defaultOpsPort, providers: .herald, sources: .herald) { runtime, herald in
            let opened = try await runtime.openStore(schema: "registration")
            let store = try await RegistrationStores.open(opened)
            return ServiceParts(clients: opened.clients, services: [
                RegistrationStages.resolving(runtime: runtime, apps: herald.apps, store: store),
                RegistrationStages.revoking(runtime: runtime, apps: herald.apps, store: store),
                RegistrationStages.recordingOutcomes(runtime: runtime, apps: herald.apps, store: store),
                DeadLetterReporter(runtime: runtime),
                CommandServer(queue: HeraldTopology.CommandQueue.registration, runtime: runtime, handler: RegistrationCommands(store: store).handle),
                try RegistrationPruner.fromEnvironment(store: store, logger: runtime.logger),
            ])
        }
    }
}
