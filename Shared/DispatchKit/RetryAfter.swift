import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP date. Every
/// provider adapter reads it here.
public enum RetryAfter {
    /// The longest delay Herald takes from a provider: a day, far beyond the two hours a
    /// delivery is retried for, so a longer one still ends it as expired.
    public static let longest = Duration.seconds(86_400)

    /// The delay `value` asks for at `now`, at most `longest`; nil when absent or unreadable,
    /// zero for a date in the past.
    public static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Too many digits for an Int is longer than `longest` too.
            return capped(seconds: Int(value).map(Double.init) ?? .infinity)
        }
        guard let date = formatter.withLock({ $0.date(from: value) }) else { return nil }
        return capped(seconds: date.timeIntervalSince(now))
    }

    /// `seconds` as a delay from zero to `longest`, whatever its size (or if not a number).
    static func capped(seconds: Double) -> Duration {
        let longestSeconds = Double(longest.components.seconds)
        guard seconds > 0 else { return .zero }
        return seconds < longestSeconds ? .milliseconds(Int((seconds * 1000).rounded(.up))) : longest
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
