import Foundation

/// Delivered outcomes that went into their events' lists, counted per app, minute and
/// provider: what `/stats` reads instead of their rows. A delivery counts in the minute its
/// first delivered outcome came.
struct DeliveredPerMinute: Sendable {
    struct Key: Hashable, Comparable {
        var app: String
        var minute: Int64
        /// Empty for an outcome that names no provider.
        var platform: String

        static func < (a: Key, b: Key) -> Bool { (a.app, a.minute, a.platform) < (b.app, b.minute, b.platform) }
    }

    private(set) var counts: [Key: Int] = [:]

    mutating func add(app: String, at: Date, platform: String?) {
        counts[Key(app: app, minute: StoredTime.minute(StoredTime.millis(at)), platform: platform ?? ""), default: 0] += 1
    }

    /// The counts in one order, so that two batches lock counter rows alike.
    var sorted: [(key: Key, count: Int)] { counts.sorted { $0.key < $1.key }.map { (key: $0.key, count: $0.value) } }
}
