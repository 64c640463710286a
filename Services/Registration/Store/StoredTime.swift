import Foundation

/// Times as the compact tables keep them: whole milliseconds since 1970 in an integer
/// (8 bytes at most in either store, against 23 characters of text), exact both ways for
/// the millisecond times Herald hands out.
enum StoredTime {
    static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// The minute `millis` falls in, as minutes since 1970.
    static func minute(_ millis: Int64) -> Int64 {
        millis >= 0 ? millis / 60_000 : (millis - 59_999) / 60_000
    }
}
