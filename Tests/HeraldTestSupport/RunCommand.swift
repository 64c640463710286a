import Foundation
import Synchronization

/// Runs `command` (looked up on PATH) and returns its exit status and its standard output
/// and error, awaiting the process without blocking a thread of the concurrency pool.
public func runCommand(_ command: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let handle = try FileHandle(forWritingTo: output)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [command] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = handle
    process.standardError = handle
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try launch(process)
        } catch {
            process.terminationHandler = nil
            continuation.resume(throwing: error)
        }
    }
    try handle.close()
    return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
}

/// Starts `process`, one launch at a time: Foundation's `Process.run()` on Linux is not safe
/// to call from several threads at once (it crashed copying the environment while another
/// launch walked the open descriptors).
public func launch(_ process: Process) throws {
    try launchLock.withLock { _ in try process.run() }
}

private let launchLock = Mutex(())
