import Foundation

/// What Herald tells an app's callback endpoint about, by the callback's `type`. An app
/// chooses which it wants (`callbacks.events` in the apps file).
public enum CallbackEvent: String, Codable, Sendable, Hashable, CaseIterable {
    /// A provider said a device's token is dead and Herald removed the device: the
    /// revocation notification an upstream's contract promises (Webcom's "the subscription
    /// is revoked, and if possible, a revocation notification is sent").
    case deviceRevoked = "device.revoked"
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
            deliveryId: id, eventId: "callback:\(id)", app: app, kind: event.rawValue, platform: .callback,
            deviceId: data["deviceId"] ?? "", token: "", os: .other, data: data, acceptedAt: at)
    }
}
