// herald-sandbox: skeleton of the local FCM and Push Kit emulator. It serves /healthz,
// /readyz and /metrics; the provider endpoints arrive with the sandbox issue. It does not
// use the broker.
import ServiceKit

await ServiceRuntime.main(name: "herald-sandbox", defaultPort: 8090, usesBroker: false)
