// herald-registration: the device registry. Resolves each event into one delivery per device,
// applies token revocations, records what became of each delivery, and answers the gateway's device, key and sponsee commands.
import HeraldServices

await HeraldExecutable.registration.main()
