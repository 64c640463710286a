import Foundation

/// How Registration remembers the event ids it fanned out: in generations, each a table of
/// its own, the current one and `older` before it. Every `older`th of the window the oldest
/// generation is dropped whole (no delete of rows, no index on time, nothing left to
/// vacuum), each of the others moves one place down and a new current one begins. So a
/// repeated event id is recognised for at least `window` after its event was processed, and
/// at most a generation longer; and what forgetting frees at once is one generation, an
/// `older`th of the window, so the store's size holds steady instead of swinging by a
/// window's worth of ids. A lookup reads every generation. Claims in progress always live
/// in the current generation (a rotation carries them over), so older ones hold only
/// processed ids.
enum IdempotencyWindow {
    /// How many generations are kept before the current one.
    static let older = 8

    /// The table of the current generation.
    static let current = "processedEvents"

    /// The tables of the older generations, the newest first.
    static let olderTables = (1...older).map(table)

    /// The table of the generation `age` rotations old (`age` from 1 to `older`).
    static func table(_ age: Int) -> String { "processedEventsBefore\(age)" }

    /// Whether a generation started at `since` (milliseconds) is due to be rotated at `now`:
    /// it is an `older`th of `window` old.
    static func isDue(since: Int64, now: Int64, window: TimeInterval) -> Bool {
        Double(now - since) * Double(older) >= window * 1000
    }

    /// The renames of a rotation, after the oldest generation's table is dropped: each older
    /// table one place down, the current one to the newest older place.
    static var renames: [(from: String, to: String)] {
        (1..<older).reversed().map { (table($0), table($0 + 1)) } + [(current, table(1))]
    }

    /// One lookup of a key (the statement's first parameter) in every older generation: a
    /// row per generation that holds it.
    static func olderLookup(_ key: String) -> String {
        olderTables.map { "SELECT key FROM \($0) WHERE key \(key)" }.joined(separator: " UNION ALL ")
    }
}
