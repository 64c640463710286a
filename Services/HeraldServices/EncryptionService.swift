import HeraldDomain
import HeraldProviders
import HeraldSources
import Encryption
import ServiceKit

/// herald-encryption: consumes allowed deliveries, renders, encrypts and sizes each one for its
/// provider, and publishes the dispatch request (or an outcome when it cannot be sent).
enum EncryptionService {
    static func main(_ executable: HeraldExecutable) async {
        await HeraldService.main(name: executable.name, defaultPort: executable.defaultPort, defaultOpsPort: executable.defaultOpsPort, providers: .herald, sources: .herald) { runtime, herald in
            ServiceParts(services: [EncryptionStage.make(runtime: runtime, herald: herald)])
        }
    }
}
