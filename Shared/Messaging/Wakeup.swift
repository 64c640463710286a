import CRabbitMQ

#if canImport(Glibc)
import Glibc
#endif

/// An eventfd that other threads signal to wake a worker thread blocked in `poll`.
final class Wakeup: Sendable {
    let descriptor: Int32

    init() {
        descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(descriptor >= 0, "eventfd failed")
    }

    deinit {
        close(descriptor)
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, 8)
    }

    /// Blocks until signalled or `timeout` passes.
    func wait(timeout: Duration) {
        var fd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Int32(timeout.milliseconds))
        drain()
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
