import Console
import Foundation
import Gateway
import HeraldDomain
import HeraldProviders
import HeraldSources
import Messaging
import ServiceKit

/// herald-gateway: the public HTTP API. Source adapters publish events with confirms; device,
/// preference and settings requests go to Registration and Preferences as AMQP RPC. The
/// Herald Console is served on the ops port, or on its own (`HERALD_CONSOLE_PORT`).
enum GatewayService {
    static func main(_ executable: HeraldExecutable) async {
        await HeraldService.main(name: executable.name, defaultPort: executable.defaultPort, defaultOpsPort: executable.defaultOpsPort, providers: .herald, sources: .herald) { runtime, herald in
            let rpc = RPCClient(configuration: runtime.connection("rpc"))
            let gateway = Gateway(
                apps: herald.apps, providers: herald.providers, sources: herald.sources, credentials: try Credentials(apps: herald.apps), publisher: runtime.requirePublisher,
                rpc: rpc, configuration: try Gateway.Configuration(environment: ProcessInfo.processInfo.environment, sources: herald.sources), logger: runtime.logger)
            // Keys, apps and rate limits follow the apps file without a restart.
            let reloader = AppsReloader(
                path: runtime.environment.configPath, providers: herald.providers, sources: herald.sources, service: "herald-gateway", logger: runtime.logger,
                applying: .inPlace { try gateway.reload($0.apps) })
            // Replicas of the gateway hold each app to one rate limit together.
            let peers = GatewayPeers(limiter: gateway.limiter, runtime: runtime)
            var parts = ServiceParts(
                clients: [rpc, gateway.deadlines], services: [reloader, peers, IngestSecretRefresher(gateway: gateway, logger: runtime.logger)], routes: { router in GatewayRoutes.add(to: router, gateway: gateway) })
            let settings = try ConsoleConfiguration(service: runtime.environment)
            if settings.enabled {
                let console = Console(gateway: gateway, configuration: settings, readiness: runtime.readiness, logger: runtime.logger)
                if settings.port != nil {
                    parts.services.append(ConsoleRoutes.server(console: console))
                } else {
                    parts.opsRoutes = { router in ConsoleRoutes.add(to: router, console: console) }
                }
            }
            return parts
        }
    }
}
