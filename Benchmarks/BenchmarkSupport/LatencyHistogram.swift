import Foundation

/// Latencies in buckets of 100 µs up to 1 s (the last bucket holds the rest), merged across
/// workers and read as percentiles in milliseconds.
public struct LatencyHistogram: Sendable {
    var buckets = [UInt32](repeating: 0, count: 10_001)

    public init() {}

    public mutating func record(_ duration: Duration) {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        buckets[min(10_000, Int(max(0, micros) / 100))] += 1
    }

    public mutating func merge(_ other: LatencyHistogram) {
        for index in buckets.indices { buckets[index] += other.buckets[index] }
    }

    /// The latency in milliseconds below which `p` (0…1) of the samples fall.
    public func percentile(_ p: Double) -> Double {
        let count = buckets.reduce(0) { $0 + Int($1) }
        var seen = 0
        for (index, value) in buckets.enumerated() {
            seen += Int(value)
            if Double(seen) >= p * Double(count) { return Double(index + 1) / 10 }
        }
        return 1000
    }
}

/// Resident memory of this process, in MiB (Linux `/proc/self/statm`).
public func residentMiB() -> Double {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = Double(statm.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}
