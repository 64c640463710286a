import HeraldDomain
import HeraldProviders
import Payloads
import ServiceKit

/// herald-encryption: consumes allowed deliveries, renders, encrypts and sizes each one for its
/// provider, and publishes the dispatch request (or an outcome when it cannot be sent).
public enum EncryptionService {
    public static func main() async {
        await HeraldService.main(name: "herald-encryption", defaultPort: 8083, providers: .herald) { runtime, herald in
            ServiceParts(services: [EncryptionStage.make(runtime: runtime, herald: herald)])
        }
    }
}
