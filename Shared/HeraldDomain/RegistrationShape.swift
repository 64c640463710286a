/// What a device hands over when it registers with a provider (`PUT …/devices/{id}`).
public enum RegistrationShape: String, Sendable, Hashable {
    /// A push token, the body's `token` (FCM, Push Kit, APNs), with an optional `key` for
    /// encrypting its pushes.
    case token
    /// A browser's push subscription, the body's `subscription` as the W3C Push API's
    /// `PushSubscription.toJSON()` gives it: its `endpoint` is the device's token (a URL of
    /// the push service, which must be https and pass the address guard) and its `keys`
    /// (`p256dh`, `auth`) the device's Web Push key. A `token` or `key` beside it is refused.
    case subscription
}
