/// A Herald push, opened: decrypted if it was encrypted, and decoded into the event it tells
/// of. The app renders `alert` (when the payload carried one) and acts on `event`.
public struct HeraldNotification: Sendable, Hashable {
    /// How much of the event's data the push carries. A push over the provider's size limit
    /// is sent smaller; the app fetches the rest by the identifying fields that remain.
    public enum Variant: String, Sendable, Hashable, CaseIterable {
        /// All of the event's data.
        case full
        /// `children.updated` with `added`, `changed` and `removed` reduced to their keys.
        case onlyKeys
        /// Only the identifying fields (`id`, `path`, and keys ending in `Id` or `ID`).
        case tooBig
        /// The identifying fields only, always: the sender asked to hide the data.
        case hidden
    }

    /// How the push travelled.
    public enum Encryption: Sendable, Hashable {
        /// In clear (the app's or the event's encryption policy allowed it).
        case none
        /// RFC 8291 to the device key `keyId`.
        case aes128gcm(keyId: String)
        /// JWE to the email address key `keyId`.
        case jwe(keyId: String)
    }

    /// Herald's event id, `<source>:<id>`: drop a push whose id was already shown (Herald
    /// delivers at least once).
    public var eventId: String
    /// What happened (`auth`, `message.created`, `children.updated`, …).
    public var kind: String
    public var variant: Variant
    public var encryption: Encryption
    /// The alert Herald rendered for the device's locale, when the event had one. It travels
    /// inside an encrypted payload; a plain push's alert is the provider's notification, which
    /// `decode(userInfo:)` reads from `aps.alert` (with its interruption level), so a
    /// notification service extension sees what an iPhone shows for a sign-in request or an
    /// Evernym message.
    public var alert: HeraldAlert?
    /// The typed event.
    public var event: HeraldEvent
    /// The event's data as received, without Herald's own keys.
    public var data: [String: String]

    /// The integration that sent the event: the event id's prefix before the first `:`.
    public var source: String {
        eventId.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
    }

    public init(eventId: String, kind: String, variant: Variant, encryption: Encryption, alert: HeraldAlert?, event: HeraldEvent, data: [String: String]) {
        self.eventId = eventId
        self.kind = kind
        self.variant = variant
        self.encryption = encryption
        self.alert = alert
        self.event = event
        self.data = data
    }
}
