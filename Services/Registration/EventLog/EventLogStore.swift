import Foundation
import HeraldModel

/// The log of the events Registration fanned out, with their outcomes' counts: what
/// `GET /events` lists and `GET /stats` counts. Kept as long as outcomes.
public protocol EventLogStore: Sendable {
    /// Logs events before their deliveries are published (so no outcome can come first),
    /// with how many outcomes each awaits; an event fanned out again keeps its counts.
    func logEvents(_ events: [LoggedEvent]) async throws
    /// A page of the app's logged events, most recent first.
    func events(app: String, _ query: EventQuery) async throws -> EventPage
    /// The app's events accepted and outcomes per minute and provider in `since..<until`.
    func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats
}
