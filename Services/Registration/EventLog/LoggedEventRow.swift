import Foundation
import HeraldModel

/// An event log row as recording outcomes reads, counts and writes it back: both stores
/// lock or read it once per batch, put delivered outcomes into its list, count it again.
struct LoggedEventRow: Sendable {
    /// How the store finds the row again: SQLite's rowid, PostgreSQL's lookup key.
    var id: Int64
    var source: String
    var kind: String
    /// Milliseconds since 1970.
    var acceptedAt: Int64
    var deliveries: Int
    /// Milliseconds after `acceptedAt`; nil while a delivery awaits its final outcome.
    var completedAfter: Int64?
    var list: DeliveredList
}

extension LoggedEventRow {
    /// What an outcome of this event becomes, as both stores decide it.
    enum Disposition {
        /// A copy of a listed delivery's outcome: counted as one more update, nothing else.
        case copy
        /// A delivered outcome the list takes (`listDelivered`).
        case listed
        /// Anything else: the delivery's outcome row.
        case row
    }

    /// Decides where `outcome` goes; a copy is counted here.
    mutating func dispose(_ outcome: Outcome) -> Disposition {
        let accepted = StoredTime.date(acceptedAt)
        if list.countCopy(of: outcome.deliveryId, at: outcome.at, acceptedAt: accepted) { return .copy }
        return Self.isListable(outcome, acceptedAt: acceptedAt) ? .listed : .row
    }

    /// Whether a delivered outcome of an event accepted at `acceptedAt` (ms) fits the list.
    static func isListable(_ outcome: Outcome, acceptedAt: Int64) -> Bool {
        outcome.status == .delivered && DeliveredList.fits(outcome.deliveryId, at: outcome.at, acceptedAt: StoredTime.date(acceptedAt))
    }

    /// Lists a delivered outcome (`dispose` said `.listed`) with how many outcomes it had.
    mutating func listDelivered(_ outcome: Outcome, updates: Int) {
        _ = list.append(outcome.deliveryId, at: outcome.at, updates: updates, acceptedAt: StoredTime.date(acceptedAt))
    }
}
