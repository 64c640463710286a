import Foundation

/// The two timestamp forms Herald writes, `2026-11-21T14:31:09.123Z` and
/// `2026-11-21T14:31:09Z`, formatted and parsed from their bytes (written for the years 0000
/// to 9999 of the proleptic Gregorian calendar, read fastest for 1970 to 9999), and any
/// other RFC 3339 `date-time` read by `parseRFC3339`.
///
/// Why not Foundation's `Date.ISO8601FormatStyle`: it truncates the binary fraction of a
/// date, so an instant parsed from `…​.829Z` is often written back as `…​.828Z`, and every
/// stage that reads and re-writes a contract moved its timestamps back a millisecond; it also
/// costs several microseconds a call. Here a parsed timestamp is the nearest `Date` to the
/// instant it names, and formatting truncates to the millisecond but takes a value within
/// one unit of binary precision below a millisecond as that millisecond, so text survives
/// any number of round trips. `parse` answers nil for anything but its two forms in 1970 to
/// 9999; `parseRFC3339` reads the rest.
enum ISO8601Timestamp {
    /// Seconds from 1970 to 2001, Foundation's reference date.
    private static let referenceOffset = 978_307_200
    /// 10000-01-01T00:00:00Z in seconds since 1970.
    private static let end = 253_402_300_800
    /// 0000-01-01T00:00:00Z in seconds since 1970.
    private static let start = -62_167_219_200
    /// The first and last instants a timestamp can name (RFC 3339 years are four digits).
    static let earliest = Date(timeIntervalSince1970: Double(start))
    static let latest = Date(timeIntervalSince1970: Double(end) - 0.001)

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`; nil outside 0000…9999.
    static func format(_ date: Date) -> String? {
        // From the reference date, as Foundation keeps it: whole seconds and their fraction
        // (the subtraction is exact).
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite else { return nil }
        var whole = sinceReference.rounded(.down)
        guard whole >= Double(start - referenceOffset), whole < Double(end - referenceOffset) else { return nil }
        // A whole millisecond is stored within half a unit of precision of itself, perhaps
        // below: of this value, or of the seconds since 1970 it may have been made from.
        let precision = max(sinceReference.ulp, (sinceReference + Double(referenceOffset)).ulp)
        var millisecond = Int(((sinceReference - whole + precision) * 1000).rounded(.down))
        if millisecond >= 1000 {
            whole += 1
            millisecond = 0
        }
        let seconds = Int(whole) + referenceOffset
        guard seconds < end else { return nil }
        // Floored, for instants before 1970.
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(daysSince1970: days)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, digits: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, digits: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, digits: 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, digits: 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, digits: 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, digits: 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(millisecond, digits: 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` or `yyyy-MM-ddTHH:mm:ss.SSSZ` with every field in its range,
    /// as the nearest `Date`; nil for anything else.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
            func number(_ offset: Int, _ digits: Int) -> Int? {
                var value = 0
                for position in offset..<(offset + digits) {
                    let byte = bytes[position]
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                  let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  (1970...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
                  hour < 24, minute < 60, second < 60 else { return nil }
            var millisecond = 0
            if bytes.count == 24 {
                guard bytes[19] == UInt8(ascii: "."), let fraction = number(20, 3) else { return nil }
                millisecond = fraction
            }
            let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + Double(millisecond) / 1000)
        }
    }

    /// Any RFC 3339 `date-time` (the JSON Schema and OpenAPI `date-time` format): years
    /// 0000 to 9999, `T` or `t`, any number of fraction digits, `Z`, `z` or an offset
    /// `±hh:mm`, a leap second `:60` read as the second after; nil for anything else.
    static func parseRFC3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("Tt"),
              let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60 else { return nil }
        var fraction = 0.0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var scale = 0.1
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if expect("Zz") {
            offset = 0
        } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
            let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after (or before) 1970-01-01 (Howard Hinnant's
    /// civil_from_days).
    private static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
