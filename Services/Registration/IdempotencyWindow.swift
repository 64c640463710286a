import Foundation

/// How Registration remembers the event ids it fanned out: in two generations of one
/// table, the current one and the one before. When the current generation is `window` old
/// the one before is dropped whole (no delete of rows, no index on time, nothing left to
/// vacuum) and the current one takes its place. So a repeated event id is recognised for
/// at least `window` after its event was processed, and at most twice that; a lookup reads
/// both generations. Claims in progress always live in the current generation (a rotation
/// carries them over), so the older one holds only processed ids.
enum IdempotencyWindow {
    /// Whether a generation started at `since` (milliseconds) is due to be rotated at `now`.
    static func isDue(since: Int64, now: Int64, window: TimeInterval) -> Bool {
        Double(now - since) >= window * 1000
    }
}
