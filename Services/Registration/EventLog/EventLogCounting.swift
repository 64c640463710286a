import Foundation
import HeraldModel

/// What both stores share in keeping the event log: which logged events a batch of
/// outcomes touches, and the minutes their statistics are grouped by.
enum EventLogCounting {
    /// The events of `outcomes` (callbacks left out: they are not logged), each once, in one
    /// order, so that two batches lock the same events in the same order.
    static func events(of outcomes: [Outcome]) -> [EventKey] {
        Set(outcomes.lazy.filter { !$0.eventId.hasPrefix(CallbackEvent.eventIdPrefix) }.map { EventKey(app: $0.app, eventId: $0.eventId) })
            .sorted { ($0.app, $0.eventId) < ($1.app, $1.eventId) }
    }

    /// A minute as the stores group by it, `yyyy-MM-dd HH:mm` in UTC.
    static func minute(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 5 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour, components.minute) = (parts[0], parts[1], parts[2], parts[3], parts[4])
        return utc.date(from: components)
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
