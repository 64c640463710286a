import Foundation

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
