import Synchronization

/// Runs `count` sends from `concurrency` callers at once, each taking the next number, as a
/// dispatcher's stage keeps its prefetch in flight: the sends per second, each send's
/// latency, and how many failed.
public enum ConcurrentSends {
    public struct Result: Sendable {
        public var rate: Double
        public var latency: LatencyHistogram
        public var failures: Int
    }

    /// `send(n)` sends number `n` and says whether it succeeded.
    public static func measure(count: Int, concurrency: Int, _ send: @escaping @Sendable (Int) async -> Bool) async -> Result {
        let counters = Counters()
        let clock = ContinuousClock()
        let started = clock.now
        let latency = await withTaskGroup(of: LatencyHistogram.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var local = LatencyHistogram()
                    while true {
                        let n = counters.issued.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard n < count else { break }
                        let sent = clock.now
                        let succeeded = await send(n)
                        local.record(clock.now - sent)
                        if !succeeded { counters.failures.wrappingAdd(1, ordering: .relaxed) }
                    }
                    return local
                }
            }
            var merged = LatencyHistogram()
            for await local in group { merged.merge(local) }
            return merged
        }
        return Result(rate: Double(count) / StageThroughput.seconds(clock.now - started), latency: latency, failures: counters.failures.load(ordering: .relaxed))
    }

    /// The next number to send and the failures so far, shared by the callers.
    private final class Counters: Sendable {
        let issued = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
    }
}
