import Foundation
import HeraldModel

/// What became of each delivery.
public protocol OutcomeStore: Sendable {
    /// Records outcomes, keeping per delivery the latest (by its time; a late `retrying`
    /// never hides the `delivered` that followed it) and counting how many arrived; counts
    /// the logged events they belong to again and returns those this batch completed (each
    /// once: the batch that gives an event its last final outcome).
    @discardableResult
    func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent]
    /// What became of an event; nil when nothing is known of it.
    func eventStatus(app: String, eventId: String) async throws -> EventStatus?
    /// The device's latest `limit` outcomes, most recent first.
    func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome]
}
