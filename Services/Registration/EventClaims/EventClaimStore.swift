import Foundation
import HeraldModel

/// The idempotency of events: of two copies of an event only one fans out.
public protocol EventClaimStore: Sendable {
    /// Claims a batch of events so that of two copies of an event only one fans out, even
    /// when both are handled at once, by this process or another. Finish each claimed event
    /// with `markProcessed(_:at:)` or `release(_:)`.
    func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim]
    /// Marks claimed events processed and ends their claims.
    func markProcessed(_ events: [EventKey], at now: Date) async throws
    /// Ends claims without marking the events processed (their outputs were not confirmed):
    /// the next copy of each is claimed again.
    func release(_ events: [EventKey]) async
    /// Whether the event's deliveries were published (a claim in progress does not count).
    func isProcessed(app: String, eventId: String) async throws -> Bool
}

extension EventClaimStore {
    public func claim(_ events: [EventKey]) async throws -> [EventClaim] { try await claim(events, now: Date()) }

    public func markProcessed(_ events: [EventKey]) async throws { try await markProcessed(events, at: Date()) }

    public func markProcessed(app: String, eventId: String, at now: Date = Date()) async throws {
        try await markProcessed([EventKey(app: app, eventId: eventId)], at: now)
    }
}
