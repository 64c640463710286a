// herald-preferences: decides for each resolved delivery whether the user wants it (network,
// user, channel, kind and device rules), and answers the gateway's preference commands.
import HeraldModel
import PreferenceRules
import ServiceKit

await ServiceRuntime.main(name: "herald-preferences", defaultPort: 8082) { runtime in
    let store = try PreferenceStore(directory: runtime.environment.dataDirectory)
    let commands = PreferenceCommands(store: store)
    return ServiceParts(services: [
        PreferencesStage.make(runtime: runtime, store: store),
        CommandServer(queue: HeraldTopology.CommandQueue.preferences, runtime: runtime, handler: commands.handle),
    ])
}
