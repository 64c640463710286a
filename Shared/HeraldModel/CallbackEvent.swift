import Foundation

/// What Herald tells an app's callback endpoint about, by the callback's `type`. An app
/// chooses which it wants (`callbacks.events` in the apps file).
public enum CallbackEvent: String, Codable, Sendable, Hashable, CaseIterable {
    /// A provider said a device's token is dead and Herald removed the device: the
    /// revocation notification an upstream's contract promises (Webcom's "the subscription
    /// is revoked, and if possible, a revocation notification is sent").
    case deviceRevoked = "device.revoked"
    /// A delivery failed for good (the provider refused it, or Herald could not send it).
    case deliveryFailed = "delivery.failed"
    /// A delivery's time ran out before it could be sent (its TTL, or two hours of retries).
    case deliveryExpired = "delivery.expired"
    /// A provider accepted a delivery: one callback per push, so only for apps that want it.
    case deliveryDelivered = "delivery.delivered"
    /// Every delivery of an event has its final outcome: the event's counts.
    case eventCompleted = "event.completed"

    /// The event ids of callbacks begin so (`callback:<id>`): their own outcomes are not
    /// called back.
    public static let eventIdPrefix = "callback:"

    /// The callback an outcome of this status is, if any.
    public init?(outcome status: OutcomeStatus) {
        switch status {
        case .failed: self = .deliveryFailed
        case .expired: self = .deliveryExpired
        case .delivered: self = .deliveryDelivered
        case .filtered, .revoked, .retrying: return nil
        }
    }
}

extension DispatchRequest {
    /// A callback for the app's callback endpoint (`Platform.callback`): `kind` is its type,
    /// `data` its fields, `acceptedAt` when it happened (retries end two hours after). Its
    /// delivery id, the `webhook-id` the receiver de-duplicates on, is derived from the app,
    /// the type and `key`, so every copy of one happening (a redelivered input, a replica's
    /// repeat) has the same id; its event id is `callback:<delivery id>`.
    public static func callback(_ event: CallbackEvent, app: String, key: String, data: [String: String], at: Date) -> DispatchRequest {
        let id = Delivery.makeId(app: app, eventId: "callback:\(event.rawValue)", deviceId: key)
        return DispatchRequest(
            deliveryId: id, eventId: CallbackEvent.eventIdPrefix + id, app: app, kind: event.rawValue, platform: .callback,
            deviceId: data["deviceId"] ?? "", token: "", os: .other, data: data, acceptedAt: at)
    }
}
