/// How a provider carries a notification, which the encryption stage builds its request by.
public enum PayloadShape: String, Sendable, Hashable {
    /// The data map and the alert in the provider's own message (FCM, Push Kit, APNs); the
    /// data map is encrypted when the event's policy and a registered key say so.
    case dataMap
    /// A forward of the event to a server (webhooks): the event's data and rendered alert,
    /// as the tenant's server receives them.
    case forward
    /// The whole message (data map and alert) is the request's body, always encrypted for
    /// the device's registered Web Push key (RFC 8291 `aes128gcm`), whatever the event's
    /// policy: a push service (Web Push) carries bytes it cannot read. An address's key does
    /// not apply (the push service needs the subscription's encryption, and the browser holds
    /// that key); a device without a key cannot be reached.
    case encryptedMessage
}
