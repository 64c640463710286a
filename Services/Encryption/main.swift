// herald-encryption: consumes allowed deliveries, renders, encrypts and sizes each one for its
// provider, and publishes the dispatch request (or an outcome when it cannot be sent).
import HeraldProviders
import Payloads
import ServiceKit

await ServiceRuntime.main(name: "herald-encryption", defaultPort: 8083, providers: .herald) { runtime in
    ServiceParts(services: [EncryptionStage.make(runtime: runtime)])
}
