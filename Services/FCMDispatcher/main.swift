// herald-fcm: skeleton. It connects to the broker, declares Herald's topology and serves
// /healthz, /readyz and /metrics; its own logic arrives with its issue.
import ServiceKit

await ServiceRuntime.main(name: "herald-fcm", defaultPort: 8084)
