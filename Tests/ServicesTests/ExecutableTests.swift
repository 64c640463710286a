import Foundation
import HeraldModel
import HeraldTestSupport
import Messaging
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built executables, run as an operator would run them. They must be built first
/// (`swift build`); `HERALD_BIN_DIR` points elsewhere when they were built with another
/// scratch path.
@Suite("Every service executable", .enabled(if: TestBroker.shouldRun))
struct ExecutableTests {
    static let services: [(name: String, usesBroker: Bool)] = [
        ("herald-gateway", true), ("herald-registration", true), ("herald-preferences", true),
        ("herald-encryption", true), ("herald-fcm", true), ("herald-hms", true),
        ("herald-webhook", true), ("herald-sandbox", false),
    ]

    static var binaryDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug")
    }

    @Test("starts, declares the topology, reports ready and exits 0 on SIGTERM", arguments: services)
    func startsReadyAndStops(service: (name: String, usesBroker: Bool)) async throws {
        let binary = Self.binaryDirectory.appendingPathComponent(service.name)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is missing: run swift build first")
        let port = try freePort()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID())")
        let log = data.appendingPathComponent("service.log")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_AMQP_URL"] = TestBroker.urlString
        environment["HERALD_HTTP_PORT"] = String(port)
        environment["HERALD_HTTP_HOST"] = "127.0.0.1"
        environment["HERALD_DATA_DIR"] = data.path
        environment["HERALD_LOG_LEVEL"] = "info"
        environment["HERALD_SANDBOX_HTTPS_PORT"] = String(try freePort())
        process.environment = environment
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: data)
        }
        @Sendable func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        try await eventually(timeout: .seconds(30), "\(service.name) to report ready") {
            guard process.isRunning else { throw TestFailure("\(service.name) exited with \(process.terminationStatus): \(logText())") }
            return try await get(port: port, path: "/readyz").status == 200
        }
        let health = try await get(port: port, path: "/healthz")
        #expect(health.status == 200)
        let metrics = try await get(port: port, path: "/metrics")
        #expect(metrics.status == 200)

        if service.usesBroker {
            // Ready means the publisher connection is up, which it is only once it declared
            // the whole topology; the broker must now have every queue and exchange of it.
            #expect(metrics.body.contains("herald_amqp_connected{connection=\"\(service.name)/publisher\"} 1"))
            let listing = try await TestBroker.rabbitmqctl("list_queues", "name")
            let declared = Set(listing.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) })
            let missing = Set(HeraldTopology.all.queues.map(\.name)).subtracting(declared)
            #expect(missing.isEmpty, "queues not declared: \(missing.sorted())")
            let exchanges = try await TestBroker.rabbitmqctl("list_exchanges", "name")
            for exchange in HeraldTopology.all.exchanges {
                #expect(exchanges.contains(exchange.name), "exchange \(exchange.name) not declared")
            }
        }

        kill(process.processIdentifier, SIGTERM)
        try await eventually(timeout: .seconds(30), "\(service.name) to exit after SIGTERM") { !process.isRunning }
        #expect(process.terminationReason == .exit, "\(service.name) was killed by a signal: \(logText())")
        #expect(process.terminationStatus == 0, "\(service.name) exited with \(process.terminationStatus): \(logText())")
        #expect(logText().contains("\"msg\":\"stopped\""))
    }
}

/// A port nothing listens on right now.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
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
