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

/// Tests that run service processes on Herald's real queues, one at a time, so that no
/// process of one test consumes another test's messages.
@Suite(.serialized, .needs(.broker))
struct ServiceProcesses {}

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

/// One built Herald executable running as a child process, with its own port, data folder
/// and log. The executables must be built first (`swift build`); `HERALD_BIN_DIR` points
/// elsewhere when they were built with another scratch path.
final class ServiceProcess: Sendable {
    let name: String
    let process: Process
    let port: Int
    /// `HERALD_OPS_PORT`, which only a service with a public API (the gateway) uses.
    let opsPort: Int
    /// Where the process serves health and metrics.
    var healthPort: Int { name == "herald-gateway" ? opsPort : port }
    let data: URL
    let log: URL

    static var binaryDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug")
    }

    /// `user`: run it as that user id (and group), without privileges, as the image's user
    /// `herald` runs it; the test process must be root to do so.
    /// `binary`: another executable to run as this service (a link to the multi-call `herald`);
    /// by default a service runs as `herald <name>`, the sandbox as its own `herald-sandbox`.
    init(_ name: String, environment extra: [String: String] = [:], user: UInt32? = nil, binary: URL? = nil) throws {
        self.name = name
        let multiCall = binary == nil && name != "herald-sandbox"
        let binary = binary ?? Self.binaryDirectory.appendingPathComponent(multiCall ? "herald" : name)
        let arguments = multiCall ? [name] : []
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw TestFailure("\(binary.path) is missing: run swift build first") }
        port = try freePort()
        opsPort = try freePort()
        data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID())")
        log = data.appendingPathComponent("service.log")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        if let user {
            guard chown(data.path, user, user) == 0 else { throw TestFailure("cannot give \(data.path) to user \(user): errno \(errno)") }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_AMQP_URL"] = TestBroker.urlString
        environment["HERALD_MANAGEMENT_URL"] = TestBroker.managementURL
        environment["HERALD_HTTP_PORT"] = String(port)
        environment["HERALD_OPS_PORT"] = String(opsPort)
        environment["HERALD_HTTP_HOST"] = "127.0.0.1"
        environment["HERALD_DATA_DIR"] = data.path
        environment["HERALD_LOG_LEVEL"] = "info"
        environment["HERALD_SANDBOX_HTTPS_PORT"] = String(try freePort())
        process.environment = environment.merging(extra) { $1 }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try launch(process)
    }

    func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func waitUntilReady() async throws {
        try await eventually(timeout: .seconds(30), "\(name) to report ready") { [self] in
            guard process.isRunning else { throw TestFailure("\(name) exited with \(process.terminationStatus): \(logText())") }
            return try await get(port: healthPort, path: "/readyz").status == 200
        }
    }

    /// SIGTERM, then waits for the exit.
    func terminate() async throws {
        kill(process.processIdentifier, SIGTERM)
        try await eventually(timeout: .seconds(30), "\(name) to exit after SIGTERM") { [process] in !process.isRunning }
    }

    /// SIGKILL: no shutdown, no acknowledgements.
    func killHard() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Kills it if it still runs and removes its folder.
    func discard() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: data)
    }
}

/// An event post with an empty body to a gateway on localhost, as `key`: 400 once the key
/// is taken and the rate limit admits it (the body is checked last), 401 for an unknown key,
/// 429 when the rate limit refuses it; 0 when no answer came. Nothing is ever published.
func postEmptyEvent(port: Int, app: String, key: String) async -> Int {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/apps/\(app)/events")!)
    request.httpMethod = "POST"
    request.timeoutInterval = 5
    request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data("{}".utf8)
    guard let (_, response) = try? await URLSession.shared.data(for: request) else { return 0 }
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

/// A GET on localhost; a refused connection counts as "not yet" (status 0).
func get(port: Int, path: String) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.timeoutInterval = 2
    do {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    } catch {
        return (0, "")
    }
}
