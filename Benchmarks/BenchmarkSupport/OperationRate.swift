import Foundation

/// Operations per second of synchronous work on the calling thread, and how the benchmarks
/// print them (one JSON line per measure, with the median of its rounds).
public enum OperationRate {
    /// Runs `body` repeatedly for `seconds`; returns operations per second.
    public static func measure(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while true {
            for _ in 0..<50 { try body() }
            count += 50
            let elapsed = clock.now - start
            if elapsed >= .seconds(seconds) {
                return Double(count) / StageThroughput.seconds(elapsed)
            }
        }
    }

    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Prints `{"measure": name, "median": …, "rounds": […]}`.
    public static func report(_ name: String, _ values: [Double]) {
        let rounds = values.map { String(Int($0)) }.joined(separator: ", ")
        print(#"{"measure":"\#(name)","median":\#(Int(median(values))),"rounds":[\#(rounds)]}"#)
    }
}
