import Foundation
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A request that the executable start again in place: its services shut down gracefully
/// (in-flight work finished and acknowledged, as on SIGTERM), then the process replaces
/// itself with a fresh start of the same executable, command line and environment (same
/// process id, same ports). A service that builds its parts from the apps file at start
/// applies a changed file this way.
public final class InPlaceRestart: Sendable {
    private let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let why = Mutex<String?>(nil)
    /// The descriptors open when the process started (its parent's: a supervisor may watch
    /// one to learn that the process ended); they stay open across the restart.
    private let inherited: Set<Int32>

    public init() {
        (requests, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        inherited = Self.openDescriptors()
    }

    private static func openDescriptors() -> Set<Int32> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) })
    }

    /// Asks for the restart, `reason` logged; the first reason is kept.
    public func request(because reason: String) {
        why.withLock { if $0 == nil { $0 = reason } }
        continuation.yield()
    }

    /// Why a restart was asked for, or nil when none was.
    public var reason: String? { why.withLock { $0 } }

    /// The part of the service group that ends it gracefully once a restart is asked for.
    var watcher: ServiceGroupConfiguration.ServiceConfiguration {
        .init(service: Watcher(requests: requests), successTerminationBehavior: .gracefullyShutdownGroup)
    }

    struct Watcher: Service {
        let requests: AsyncStream<Void>

        func run() async throws {
            let requests = requests
            await cancelWhenGracefulShutdown {
                for await _ in requests { return }
            }
        }
    }

    /// Replaces the process with a fresh start of its executable. Only a failure returns:
    /// the error says why. The descriptors the process opened are closed across it (a
    /// connection library may have opened one without close-on-exec), those it was started
    /// with kept; signals are unblocked and their handling reset, as a new process has them.
    func exec() -> any Error {
        fflush(nil)  // every output stream, the logs' included
        for descriptor in Self.openDescriptors().subtracting(inherited) where descriptor > 2 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        for signal in [SIGTERM, SIGINT, SIGHUP] { Glibc.signal(signal, SIG_DFL) }
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        return POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
