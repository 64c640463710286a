import Foundation
import JSONKit

// What Herald's contracts add to JSONKit's reader and writer: timestamps as `HeraldJSON`
// writes them, and the visible alert's object.

extension JSONReader {
    /// A timestamp the way contracts carry it.
    public mutating func timestamp() throws -> Date {
        guard let date = HeraldJSON.parseTimestamp(try string()) else { throw Mismatch() }
        return date
    }
}

extension JSONWriter {
    /// A timestamp the way contracts carry it (`2026-11-21T14:31:09.123Z`).
    public mutating func timestamp(_ date: Date) {
        string(HeraldJSON.formatTimestamp(date))
    }

    /// A visible alert's `{"body", "title"}` object, either left out when nil (FCM's
    /// `notification`, the dispatch request's and the event's literal alert).
    public mutating func titleAndBody(title: String?, body: String?) {
        beginObject()
        if let body { key("body"); string(body) }
        if let title { key("title"); string(title) }
        endObject()
    }
}
