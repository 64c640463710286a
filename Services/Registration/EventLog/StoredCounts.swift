import Foundation
import HeraldModel

/// An event's counts as the event log keeps them: nothing at all while every delivery
/// counted so far is in its delivered list (the count is the list's length), else the six
/// counts as 32-bit numbers, 24 bytes, for the events something else happened to.
enum StoredCounts {
    static func bytes(_ counts: EventCounts, listed: Int) -> Data? {
        if counts == EventCounts([(.delivered, listed)]) { return nil }
        var bytes = Data(capacity: 24)
        for value in [counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying] {
            let number = UInt32(clamping: value)
            bytes += [UInt8(number >> 24), UInt8(number >> 16 & 0xff), UInt8(number >> 8 & 0xff), UInt8(number & 0xff)]
        }
        return bytes
    }

    /// The counts of a row: its stored counts, or (none stored) its list's length delivered.
    static func counts(_ bytes: Data?, listed: Int) -> EventCounts {
        guard let bytes, bytes.count == 24 else { return EventCounts([(.delivered, listed)]) }
        let values = stride(from: 0, to: 24, by: 4).map { start in
            Int(bytes[bytes.startIndex + start..<bytes.startIndex + start + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        var counts = EventCounts()
        (counts.delivered, counts.failed, counts.expired, counts.revoked, counts.filtered, counts.retrying) =
            (values[0], values[1], values[2], values[3], values[4], values[5])
        return counts
    }
}
