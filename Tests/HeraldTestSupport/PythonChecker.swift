import Foundation

/// Runs an independent checker written in Python (with packages from PyPI: see
/// `Tests/Interop/requirements.txt`) on one JSON request and returns its JSON reply. The test
/// command installs them in `.build/python`; elsewhere set `HERALD_PYTHON` to a Python that
/// has them.
public enum PythonChecker {
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var python: String? {
        if let configured = ProcessInfo.processInfo.environment["HERALD_PYTHON"], !configured.isEmpty { return configured }
        let local = packageRoot.appendingPathComponent(".build/python/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }


    /// Runs `script` (a path) with the request in a file named by its first argument; the last
    /// line it prints is the reply.
    public static func run(_ script: String, _ request: [String: Any]) async throws -> [String: Any] {
        guard let python else { throw TestFailure("no Python with the interop packages: run scripts/test or set HERALD_PYTHON") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try await runCommand(python, [script, file.path])
        guard status == 0, let last = output.split(separator: "\n").last,
              let reply = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw TestFailure("\(script) failed (\(status)): \(output)")
        }
        return reply
    }
}
