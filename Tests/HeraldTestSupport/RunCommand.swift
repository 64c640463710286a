import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs `command` (looked up on PATH) and returns its exit status and its standard output
/// and error, awaiting the process without blocking a thread of the concurrency pool.
///
/// It spawns with `posix_spawnp` rather than Foundation's `Process`: on Linux,
/// `Process.run()` crashed (a bad read while copying in `run()`) when tests launched many
/// short commands at once, even with its launches serialized.
public func runCommand(_ command: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: output) }
    let descriptor = open(output.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw TestFailure("cannot create \(output.path): errno \(errno)") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, descriptor, 1)
    posix_spawn_file_actions_adddup2(&actions, descriptor, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // The child starts with no signal blocked, whatever the spawning thread blocks.
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = ([command] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, command, &actions, &attributes, argv, environ)
    close(descriptor)
    guard spawned == 0 else { throw TestFailure("cannot run \(command): error \(spawned)") }
    let child = pid
    let status: Int32 = await withCheckedContinuation { continuation in
        let waiter = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            // Exited: its code; killed by a signal: 128 + the signal, as shells report it.
            continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
        }
        waiter.name = "wait:\(command)"
        waiter.start()
    }
    return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
}

/// Starts `process`, one launch at a time: Foundation's `Process.run()` on Linux is not safe
/// to call from several threads at once (it crashed copying the environment while another
/// launch walked the open descriptors). For the long-running executables the tests start;
/// short commands go through `runCommand`.
public func launch(_ process: Process) throws {
    try launchLock.withLock { _ in try process.run() }
}

private let launchLock = Mutex(())
