// herald-gateway: the public HTTP API. Source adapters publish events with confirms; device,
// preference and settings requests go to Registration and Preferences as AMQP RPC. The
// Herald Console is served on the ops port, or on its own (`HERALD_CONSOLE_PORT`).
import HeraldServices

await HeraldExecutable.gateway.main()
