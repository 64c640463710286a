import Foundation

/// A moment as ISO 8601 text in UTC with milliseconds (`2026-11-26T10:00:00.123Z`), as the
/// logs and the dead letters' headers write it.
enum UTCTimestamp {
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }
}
