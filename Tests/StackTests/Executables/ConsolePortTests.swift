import Foundation
import HeraldTestSupport
import Testing

/// Where herald-gateway serves the console: on the ops port by default, on a port of its
/// own (bound where `HERALD_CONSOLE_HOST` says) when `HERALD_CONSOLE_PORT` is set, nowhere
/// with `HERALD_CONSOLE=off`; a wrong setting stops it at start, naming the setting.
extension ServiceProcesses {
    @Suite("Where the console is served") struct ConsolePortTests {
        @Test func onItsOwnPortTheConsoleLeavesTheOpsPortToHealthAndMetrics() async throws {
            let consolePort = try freePort()
            let gateway = try ServiceProcess("herald-gateway", environment: ["HERALD_CONSOLE_PORT": String(consolePort), "HERALD_CONSOLE_HOST": "127.0.0.1"])
            defer { gateway.discard() }
            try await gateway.waitUntilReady()
            try await eventually(timeout: .seconds(10), "the console on its own port") {
                let page = try await get(port: consolePort, path: "/console/")
                return page.status == 200 && page.body.contains("/console/assets/app.js")
            }
            #expect(try await get(port: consolePort, path: "/console/assets/app.js").status == 200)
            #expect(try await get(port: gateway.opsPort, path: "/console/").status == 404)
            #expect(try await get(port: consolePort, path: "/metrics").status == 404, "health and metrics stay on the ops port")
            #expect(try await get(port: gateway.port, path: "/console/").status == 404, "never on the public port")
            try await gateway.terminate()
            #expect(gateway.process.terminationStatus == 0)
        }

        @Test func offServesNoConsole() async throws {
            let gateway = try ServiceProcess("herald-gateway", environment: ["HERALD_CONSOLE": "off"])
            defer { gateway.discard() }
            try await gateway.waitUntilReady()
            #expect(try await get(port: gateway.opsPort, path: "/console/").status == 404)
            #expect(try await get(port: gateway.opsPort, path: "/healthz").status == 200)
        }

        @Test func aServiceListThatIsNotNameEqualsURLStopsTheGatewayAtStart() async throws {
            let gateway = try ServiceProcess("herald-gateway", environment: ["HERALD_CONSOLE_SERVICES": "registration:8081"])
            defer { gateway.discard() }
            try await eventually(timeout: .seconds(30), "the gateway to exit") { !gateway.process.isRunning }
            #expect(gateway.process.terminationStatus == 2)
            #expect(gateway.logText().contains("HERALD_CONSOLE_SERVICES"), "\(gateway.logText())")
        }
    }
}
