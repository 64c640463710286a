// herald-gateway: the public HTTP API. Source adapters publish events with confirms; device,
// preference and settings requests go to Registration and Preferences as AMQP RPC.
import GatewayAPI
import HeraldDomain
import HeraldProviders
import Messaging
import ServiceKit

// Health and metrics on 9080, apart from the public API.
await HeraldService.main(name: "herald-gateway", defaultPort: 8080, defaultOpsPort: 9080, providers: .herald) { runtime, herald in
    let rpc = RPCClient(configuration: runtime.connection("rpc"))
    let gateway = Gateway(
        apps: herald.apps, providers: herald.providers, keys: try APIKeys(apps: herald.apps), publisher: runtime.requirePublisher,
        rpc: rpc, logger: runtime.logger)
    return ServiceParts(clients: [rpc, gateway.deadlines], routes: { router in GatewayRoutes.add(to: router, gateway: gateway) })
}
