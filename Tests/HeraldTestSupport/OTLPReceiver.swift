import Foundation

/// The OpenTelemetry collector stand-in (deploy/otel-collector/otlp_receiver.py) on a free
/// port: it decodes what exporters send over OTLP/HTTP with `opentelemetry-proto`, an
/// implementation independent of Herald's, and keeps every span as a line of JSON.
public final class OTLPReceiver: Sendable {
    public let port: Int
    public let spansFile: URL
    private let process: Process
    private let directory: URL

    /// One decoded span (see the script for its fields).
    public struct Span: Sendable, CustomStringConvertible {
        public let traceId: String
        public let spanId: String
        public let parentSpanId: String
        public let name: String
        public let kind: String
        public let service: String
        public let statusCode: String
        public let attributes: [String: String]
        public let events: [String]
        public let links: [String]

        public var description: String { "\(service): \(name) (\(kind), \(spanId) ← \(parentSpanId.isEmpty ? "root" : parentSpanId))" }
    }

    public static func start() async throws -> OTLPReceiver {
        guard let python = PythonChecker.python else { throw TestFailure("no Python with opentelemetry-proto: run scripts/test or set HERALD_PYTHON") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-otlp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("port")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            PythonChecker.packageRoot.appendingPathComponent("deploy/otel-collector/otlp_receiver.py").path,
            "--host", "127.0.0.1", "--port", "0", "--out", directory.appendingPathComponent("spans.jsonl").path, "--ready-file", ready.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let readPort: @Sendable () -> Int? = { (try? String(contentsOf: ready, encoding: .utf8)).flatMap { Int($0) } }
        try await eventually(timeout: .seconds(30), "the OTLP receiver listening") {
            readPort() != nil || !process.isRunning
        }
        guard let port = readPort() else { throw TestFailure("the OTLP receiver did not start (exit \(process.terminationStatus))") }
        return OTLPReceiver(port: port, process: process, directory: directory)
    }

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
        spansFile = directory.appendingPathComponent("spans.jsonl")
    }

    /// The environment that points a Herald service at this receiver, exporting soon after
    /// each span ends.
    public var environment: [String: String] {
        ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_BSP_SCHEDULE_DELAY": "200"]
    }

    /// Every span received so far.
    public func spans() -> [Span] {
        guard let text = try? String(contentsOf: spansFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let attributes = (json["attributes"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            return Span(
                traceId: json["traceId"] as? String ?? "", spanId: json["spanId"] as? String ?? "", parentSpanId: json["parentSpanId"] as? String ?? "",
                name: json["name"] as? String ?? "", kind: json["kind"] as? String ?? "", service: json["service"] as? String ?? "",
                statusCode: (json["status"] as? [String: Any])?["code"] as? String ?? "", attributes: attributes,
                events: (json["events"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String },
                links: (json["links"] as? [[String: Any]] ?? []).compactMap { $0["spanId"] as? String })
        }
    }

    /// The spans of one trace.
    public func trace(_ traceId: String) -> [Span] {
        spans().filter { $0.traceId == traceId }
    }

    /// Stops the receiver: SIGTERM, then SIGKILL after 5 s (a test process's child may
    /// inherit SIGTERM blocked).
    public func stop() {
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
