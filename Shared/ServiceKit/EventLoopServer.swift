import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Runs an HTTP server on one event loop, its handlers' tasks included: a request is read,
/// handled and answered on one thread, so it costs no wake-up of a concurrency-pool thread
/// and none back to the event loop for the response.
struct EventLoopServer<Base: Service>: Service {
    let base: Base
    let executor: EventLoopTaskExecutor

    func run() async throws {
        try await withTaskExecutorPreference(executor) { try await base.run() }
    }
}

/// A Swift concurrency task executor that runs jobs on one SwiftNIO event loop.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
