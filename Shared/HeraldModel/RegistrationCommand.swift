import Foundation

/// The commands the gateway sends to Registration over AMQP RPC (queue
/// `registration.commands`, type `herald.registration-command.v1`), each answered with a
/// `RegistrationReply` or a `CommandError`. Encoded with the command as the single key:
/// `{"getDevice": {"app": "chat", "deviceId": "d1"}}`.
public indirect enum RegistrationCommand: Codable, Sendable, Hashable {
    public static let contractName = "herald.registration-command.v1"

    case registerDevice(app: String, registration: DeviceRegistration)
    case getDevice(app: String, deviceId: String)
    /// With a user id, removes the device only if it belongs to that user; with a push token
    /// (a signed-out app's proof that the device is its own), only if the device holds it.
    case unregisterDevice(app: String, deviceId: String, userId: String?, token: String? = nil)
    /// A change to a source's state (Smart ID's profile devices, Evernym's sponsees, email
    /// addresses' keys), made by the source's state route.
    case changeSourceState(app: String, change: SourceStateChange)
    /// What became of an event's deliveries.
    case eventStatus(app: String, eventId: String)
    /// A page of the app's events, most recent first.
    case listEvents(app: String, query: EventQuery)
    /// A page of the app's devices, most recently registered first.
    case listDevices(app: String, query: DeviceQuery)
    /// The app's counts from `since` to `until`, per minute and per provider.
    case stats(app: String, since: Date, until: Date)
    /// `command` sent for a device-side client token: Registration runs it only if it stays
    /// within what `identity` may touch (its user's devices, address keys and profile ids),
    /// else answers 403 and changes nothing.
    case actingFor(identity: ClientIdentity, command: RegistrationCommand)
    /// Adds a secret (its SHA-256 in hex; the secret itself never leaves the gateway that made
    /// it) to the app's ingest URL `id`: with `source`, a new URL for that source (409 if the
    /// id is taken); without, a second secret of an existing URL while rotating (404 for no
    /// such URL, 409 for a third secret).
    case addIngestSecret(app: String, id: String, source: String?, networks: [String], sha256: String)
    /// Revokes one secret of the app's ingest URL `id` (by its fingerprint), or the whole URL.
    case revokeIngestSecret(app: String, id: String, fingerprint: String?)
    /// The app's ingest URLs (ids, sources, networks, fingerprints; never a secret).
    case listIngestURLs(app: String)
    /// Every app's ingest secrets as SHA-256s, for the gateways to match requests against.
    case ingestSecrets

    public var app: String {
        switch self {
        case .registerDevice(let app, _), .getDevice(let app, _), .unregisterDevice(let app, _, _, _),
             .changeSourceState(let app, _),
             .eventStatus(let app, _), .listEvents(let app, _), .listDevices(let app, _), .stats(let app, _, _):
            return app
        case .addIngestSecret(let app, _, _, _, _), .revokeIngestSecret(let app, _, _), .listIngestURLs(let app):
            return app
        case .ingestSecrets:
            return "*"
        case .actingFor(_, let command):
            return command.app
        }
    }
}

/// What Registration answers (type `herald.registration-reply.v1`); only the part the
/// command is about is present.
public struct RegistrationReply: Codable, Sendable, Hashable {
    public static let contractName = "herald.registration-reply.v1"

    public var device: DeviceRecord?
    /// For `unregisterDevice`: whether a device was removed, and if not, why.
    public var removed: Bool?
    public var detail: String?
    public var addressKey: AddressKey?
    /// For `addIngestSecret` and `listIngestURLs`.
    public var ingestURL: IngestURL?
    public var ingestURLs: [IngestURL]?
    /// For `ingestSecrets`.
    public var ingestSecrets: [IngestSecretEntry]?
    public var sponsee: Sponsee?
    public var event: EventStatus?
    public var events: EventPage?
    public var devices: DevicePage?
    public var stats: DeliveryStats?

    public init(
        device: DeviceRecord? = nil, removed: Bool? = nil, detail: String? = nil, addressKey: AddressKey? = nil, sponsee: Sponsee? = nil, event: EventStatus? = nil,
        events: EventPage? = nil, devices: DevicePage? = nil, stats: DeliveryStats? = nil
    ) {
        self.events = events
        self.devices = devices
        self.stats = stats
        self.device = device
        self.removed = removed
        self.detail = detail
        self.addressKey = addressKey
        self.sponsee = sponsee
        self.event = event
    }
}

/// An Evernym sponsee's com method.
public struct Sponsee: Codable, Sendable, Hashable {
    public var sponseeId: String
    /// 3: forward to the sponsor's endpoint; 4: push to the token in `value` (`FCM:<token>`).
    public var type: Int
    public var value: String

    public init(sponseeId: String, type: Int, value: String) {
        self.sponseeId = sponseeId
        self.type = type
        self.value = value
    }
}
