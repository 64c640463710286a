import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP date. Every
/// provider adapter reads it here.
public enum RetryAfter {
    /// The delay `value` asks for at `now`; nil when absent or unreadable, zero for a date in
    /// the past.
    public static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        guard let date = formatter.withLock({ $0.date(from: value) }) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
    }

    private static let formatter: LockedFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return LockedFormatter(formatter)
    }()
}

/// A `DateFormatter` (not thread-safe) behind a lock.
final class LockedFormatter: @unchecked Sendable {
    private let formatter: DateFormatter
    private let lock = NSLock()

    init(_ formatter: DateFormatter) { self.formatter = formatter }

    func withLock<T>(_ body: (DateFormatter) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(formatter)
    }
}
