import Foundation
import HeraldTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Tests that run service processes on Herald's real queues, one at a time, so that no
/// process of one test consumes another test's messages: every suite of this target is
/// nested in it, whatever folder it is in.
@Suite(.serialized, .needs(.broker))
struct ServiceProcesses {}

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
        return PythonChecker.packageRoot.appendingPathComponent(".build/debug")
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
