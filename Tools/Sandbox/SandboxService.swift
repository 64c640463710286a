import Foundation
import NIOCore
import NIOPosix
import ProviderSandbox
import ServiceKit

/// herald-sandbox: a local emulator of FCM HTTP v1, Huawei Push Kit and APNs (and their OAuth
/// endpoints), with token rules, fault injection and an inbox. Plain HTTP on HERALD_HTTP_PORT
/// (8090, with /healthz, /readyz, /metrics), HTTPS with HTTP/2 on HERALD_SANDBOX_HTTPS_PORT
/// (8443). It does not use the broker. `herald-sandbox --manifest` prints what it emulates
/// (`EmulatorManifest`) and exits.
enum SandboxService {
    static func main() async {
        if CommandLine.arguments.dropFirst().contains("--manifest") {
            do {
                FileHandle.standardOutput.write(Data(try EmulatorManifest.text().utf8))
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("herald-sandbox: \(error)\n".utf8))
                exit(1)
            }
        }
        // The sandbox is a pure NIO server: run Swift concurrency on NIO's event loops, so request
        // handlers do not hop between the event-loop threads and a separate pool.
        let onEventLoops = NIOCore.NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        if ProcessInfo.processInfo.environment["HERALD_SANDBOX_DEBUG_EXECUTOR"] != nil {
            FileHandle.standardError.write(Data("concurrency on NIO event loops: \(onEventLoops)\n".utf8))
        }

        await ServiceRuntime.main(name: "herald-sandbox", defaultPort: 8090, usesBroker: false) { runtime in
            let configuration = try SandboxConfiguration.fromEnvironment(
                ProcessInfo.processInfo.environment, dataDirectory: runtime.environment.dataDirectory,
                httpHost: runtime.environment.httpHost)
            let sandbox = try Sandbox(configuration: configuration, logger: runtime.logger)
            var services: [any Service] = []
            if let port = configuration.httpsPort {
                let ready = ReadinessProbe()
                runtime.readiness.register("https") { ready.holds }
                services.append(SandboxServer.https(sandbox, host: configuration.httpsHost, port: port, logger: runtime.logger) { _ in
                    ready.attach { true }
                })
            }
            return ServiceParts(services: services, routes: { router in sandbox.addRoutes(to: router) })
        }
    }
}
