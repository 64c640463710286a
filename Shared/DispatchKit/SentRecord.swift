import Foundation
import Synchronization

/// The delivery ids a dispatcher replica set delivered lately, so that a request that comes
/// back after its send succeeded (its outcome could not be published, the dispatcher died
/// before acknowledging it) is not sent again. Each replica keeps its own copy: what it sent
/// itself, and what every replica appended to the platform's `dispatch.sent.<platform>`
/// stream (`SentRecordFollower`), which a replica that starts late reads back for the whole
/// window.
///
/// Ids are kept as 64-bit FNV-1a hashes in one set per minute, the oldest dropped as the
/// window moves on: about 16 bytes an id, 50 MB for ten minutes at 5,000 deliveries a second.
/// A collision (odds around 10⁻⁸ at that size) would hold back one push.
public final class SentRecord: Sendable {
    /// How long an id is remembered.
    public let window: Duration
    private let buckets: Mutex<[Int64: Set<UInt64>]>

    public init(window: Duration = .seconds(600)) {
        self.window = window
        buckets = Mutex([:])
    }

    /// Records that `deliveryId` was delivered at `date`.
    public func insert(_ deliveryId: String, at date: Date = Date()) {
        let minute = Self.minute(date)
        let hash = Self.hash(deliveryId)
        let oldest = minute - windowMinutes
        buckets.withLock { buckets in
            buckets[minute, default: []].insert(hash)
            // The window moved on: forget what is older.
            if buckets.count > Int(windowMinutes) + 2 { buckets = buckets.filter { $0.key >= oldest } }
        }
    }

    /// Whether `deliveryId` was delivered within the window before `now`.
    public func contains(_ deliveryId: String, now: Date = Date()) -> Bool {
        let hash = Self.hash(deliveryId)
        let oldest = Self.minute(now) - windowMinutes
        return buckets.withLock { buckets in
            buckets.contains { $0.key >= oldest && $0.value.contains(hash) }
        }
    }

    /// How many ids are remembered (for the metrics).
    public var count: Int {
        buckets.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    /// The window in whole minutes (at least one), as the record keeps it.
    var windowMinutes: Int64 {
        max(1, (window.components.seconds + 59) / 60)
    }

    private static func minute(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    /// FNV-1a, 64 bits: the same on every replica (Swift's `Hasher` is seeded per process).
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
