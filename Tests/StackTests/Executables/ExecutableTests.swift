import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldServices
import HeraldTestSupport
import Messaging
import ServiceKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

extension ServiceProcesses {
    @Suite("Every service executable")
    struct ExecutableTests {
        /// Every executable the multi-call `herald` runs (a dispatcher per provider of the
        /// registry), and the sandbox.
        static let services: [(name: String, usesBroker: Bool)] =
            HeraldExecutable.all.map { ($0.name, true) } + [("herald-sandbox", false)]

        @Test("starts, declares the topology, reports ready and exits 0 on SIGTERM", arguments: services)
        func startsReadyAndStops(service: (name: String, usesBroker: Bool)) async throws {
            let process = try ServiceProcess(service.name)
            defer { process.discard() }
            try await process.waitUntilReady()
            let health = try await get(port: process.healthPort, path: "/healthz")
            #expect(health.status == 200)
            let metrics = try await get(port: process.healthPort, path: "/metrics")
            #expect(metrics.status == 200)
            if process.healthPort != process.port {
                // A public API keeps its operations off the public port.
                for path in ["/healthz", "/readyz", "/metrics"] {
                    #expect(try await get(port: process.port, path: path).status == 404, "\(path) on the public port")
                }
            }

            if service.usesBroker {
                // Ready means the publisher connection is up, which it is only once it declared
                // the whole topology; the broker must now have every queue and exchange of it.
                #expect(metrics.body.contains("herald_amqp_connected{connection=\"\(service.name)/publisher\"} 1"))
                let listing = try await TestBroker.rabbitmqctl("list_queues", "name")
                let declared = Set(listing.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) })
                let missing = Set(HeraldTopology.all(.herald).queues.map(\.name)).subtracting(declared)
                #expect(missing.isEmpty, "queues not declared: \(missing.sorted())")
                let exchanges = try await TestBroker.rabbitmqctl("list_exchanges", "name")
                for exchange in HeraldTopology.all(.herald).exchanges {
                    #expect(exchanges.contains(exchange.name), "exchange \(exchange.name) not declared")
                }
            }

            try await process.terminate()
            #expect(process.process.terminationReason == .exit, "\(service.name) was killed by a signal: \(process.logText())")
            #expect(process.process.terminationStatus == 0, "\(service.name) exited with \(process.process.terminationStatus): \(process.logText())")
            #expect(process.logText().contains("\"msg\":\"stopped\""))
        }

        @Test("the multi-call herald runs the service it is linked as, as the image runs every service", arguments: ["herald-fcm", "herald-gateway"])
        func multiCallRunsTheServiceItIsLinkedAs(name: String) async throws {
            let links = FileManager.default.temporaryDirectory.appendingPathComponent("herald-links-\(UUID())")
            try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: links) }
            let link = links.appendingPathComponent(name)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: ServiceProcess.binaryDirectory.appendingPathComponent("herald"))
            let process = try ServiceProcess(name, binary: link)
            defer { process.discard() }
            try await process.waitUntilReady()
            #expect(process.logText().contains("\"service\":\"\(name)\""), "\(process.logText())")
            try await process.terminate()
            #expect(process.process.terminationStatus == 0, "\(name) exited with \(process.process.terminationStatus): \(process.logText())")
        }

        @Test("the multi-call herald runs heraldctl by its first argument and refuses a name it does not have")
        func multiCallArguments() async throws {
            let herald = ServiceProcess.binaryDirectory.appendingPathComponent("herald").path
            let help = try await runCommand(herald, ["heraldctl", "queues", "--help"])
            #expect(help.status == 0 && help.output.contains("Depth, rates and consumers"), "\(help)")
            let unknown = try await runCommand(herald, ["herald-nothing"])
            #expect(unknown.status == 64 && unknown.output.contains("herald-gateway") && unknown.output.contains("heraldctl"), "\(unknown)")
        }

        @Test("the production herald does not run the provider sandbox, a tool of its own")
        func multiCallHasNoSandbox() async throws {
            let herald = ServiceProcess.binaryDirectory.appendingPathComponent("herald").path
            let sandbox = try await runCommand(herald, ["herald-sandbox"])
            #expect(sandbox.status == 64 && sandbox.output.contains("no executable named \"herald-sandbox\""), "\(sandbox)")
        }

        @Test("herald providers --manifest prints every executable of the registry, and herald links makes a link for each")
        func manifestAndLinks() async throws {
            let herald = ServiceProcess.binaryDirectory.appendingPathComponent("herald").path
            let printed = try await runCommand(herald, ["providers", "--manifest"])
            #expect(printed.status == 0)
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(printed.output.utf8)) as? [String: Any])
            let executables = try #require(manifest["executables"] as? [[String: Any]])
            #expect(executables.compactMap { $0["name"] as? String } == HeraldExecutable.all.map(\.name))
            let dispatchers = executables.filter { $0["kind"] as? String == "dispatcher" }
            #expect(dispatchers.compactMap { $0["platform"] as? String } == ProviderRegistry.herald.platforms.map(\.rawValue))

            let links = FileManager.default.temporaryDirectory.appendingPathComponent("herald-links-\(UUID())")
            try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: links) }
            let linked = try await runCommand(herald, ["links", links.path])
            #expect(linked.status == 0, "\(linked)")
            let names = try FileManager.default.contentsOfDirectory(atPath: links.path).sorted()
            #expect(names == (HeraldExecutable.all.map(\.name) + ["heraldctl"]).sorted())
        }

        @Test("the sandbox completes a TLS handshake when it runs without privileges, as the image's user herald runs it",
              .needs(.root))
        func sandboxServesHTTPSUnprivileged() async throws {
            let httpsPort = try freePort()
            let nobody: UInt32 = 65534
            let process = try ServiceProcess("herald-sandbox", environment: ["HERALD_SANDBOX_HTTPS_PORT": String(httpsPort)], user: nobody)
            defer { process.discard() }
            try await process.waitUntilReady()
            let sandboxDirectory = process.data.appendingPathComponent("sandbox")
            let answer = try await runCommand("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
                                                       "--cacert", sandboxDirectory.appendingPathComponent("ca.pem").path,
                                                       "https://localhost:\(httpsPort)/"])
            #expect(answer.status == 0, "curl exited with \(answer.status): \(answer.output)")
            try await process.terminate()
        }
    }
}
