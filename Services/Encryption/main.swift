// herald-encryption: consumes allowed deliveries, renders, encrypts and sizes each one for its
// provider, and publishes the dispatch request (or an outcome when it cannot be sent).
import HeraldServices

await HeraldExecutable.encryption.main()
