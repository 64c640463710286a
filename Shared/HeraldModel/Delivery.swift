import Crypto
import Foundation

/// `herald.delivery.v1`: one event for one device. Published by Registration to
/// `herald.deliveries` (`resolved`), and by Preferences again (`allowed`) when the user wants it.
public struct Delivery: Contract, Hashable {
    public static let contractName = ContractName.delivery

    /// Deterministic: the same event and device always give the same id (see `makeId`).
    public var deliveryId: String
    public var eventId: String
    public var app: String
    public var source: EventSource
    public var kind: String
    public var occurredAt: Date
    public var context: [String: String]
    public var data: [String: String]
    public var alert: Alert?
    public var options: DeliveryOptions
    public var device: DeviceTarget
    /// The RSA key of the email address, when the audience was an address that registered one.
    public var addressKey: AddressKey?
    /// When Herald accepted the event (see `NotificationEvent.acceptedAt`).
    public var acceptedAt: Date?

    public var messageId: String { deliveryId }
    public var correlationId: String { eventId }

    public init(
        deliveryId: String? = nil, eventId: String, app: String, source: EventSource, kind: String,
        occurredAt: Date, context: [String: String] = [:], data: [String: String] = [:],
        alert: Alert? = nil, options: DeliveryOptions = DeliveryOptions(),
        device: DeviceTarget, addressKey: AddressKey? = nil, acceptedAt: Date? = nil
    ) {
        self.deliveryId = deliveryId ?? Delivery.makeId(app: app, eventId: eventId, deviceId: device.id)
        self.eventId = eventId
        self.app = app
        self.source = source
        self.kind = kind
        self.occurredAt = occurredAt
        self.context = context
        self.data = data
        self.alert = alert
        self.options = options
        self.device = device
        self.addressKey = addressKey
        self.acceptedAt = acceptedAt
    }

    /// Builds the delivery of `event` to `device`, copying what the later stages need
    /// (never the audience, which may list thousands of users).
    public init(event: NotificationEvent, device: DeviceTarget, addressKey: AddressKey? = nil) {
        self.init(
            eventId: event.id, app: event.app, source: event.source, kind: event.kind,
            occurredAt: event.occurredAt, context: event.context, data: event.data,
            alert: event.alert, options: event.options, device: device, addressKey: addressKey, acceptedAt: event.acceptedAt)
    }

    /// The deterministic delivery id: the first 128 bits of SHA-256 over app, event id and
    /// device id, in hex. A redelivered event therefore yields the same delivery ids.
    public static func makeId(app: String, eventId: String, deviceId: String) -> String {
        var hasher = SHA256()
        for part in [app, eventId, deviceId] {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        return Hex.encode(hasher.finalize().prefix(16))
    }
}

/// The provider a device is reached through: a provider's name, such as `fcm`. Any
/// provider module can name one; which platforms a deployment serves is its provider
/// registry's list, not this type's. A name is 1-32 lowercase letters, digits or '-',
/// starting with a letter (it is part of queue names and routing keys).
public struct Platform: RawRepresentable, Codable, Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// nil for a name that is not a valid platform name.
    public init?(rawValue: String) {
        guard Self.isValidName(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral name: String) {
        precondition(Self.isValidName(name), "\"\(name)\" is not a platform name")
        rawValue = name
    }

    /// Whether `name` may name a platform.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    public var description: String { rawValue }
    public static func < (a: Platform, b: Platform) -> Bool { a.rawValue < b.rawValue }

    /// Firebase Cloud Messaging: the platform the upstreams' Android tokens (Smart ID,
    /// Evernym's `FCM:` com methods) are for.
    public static let fcm: Platform = "fcm"
    /// Huawei Push Kit.
    public static let hms: Platform = "hms"
    /// Apple Push Notification service: the platform of the upstreams' iOS device tokens
    /// (Smart ID's `OS: iOS`, Upstra's iOS SDK) when the app has APNs settings.
    public static let apns: Platform = "apns"
    /// A forward to the app's own server: the route of every device of an app in webhook
    /// mode, and of type-3 Evernym sponsees.
    public static let webhook: Platform = "webhook"
    /// A callback to the app's callback endpoint (`callbacks` in the apps file): Herald telling
    /// the integrator what happened (a device revoked), not a notification.
    public static let callback: Platform = "callback"
}

/// The operating system of a device; it decides provider-specific hints (e.g. APNs fields for iOS).
public enum DeviceOS: String, Codable, Sendable, Hashable, CaseIterable {
    case ios, android, web, other
}

/// The device a delivery goes to, as Registration knows it. `platform` is the route: a
/// webhook target (`webhook`) says in `recipient` whom the forward is about.
public struct DeviceTarget: Codable, Sendable, Hashable {
    public var id: String
    public var platform: Platform
    public var token: String
    public var os: DeviceOS
    public var userId: String?
    public var locale: String?
    /// The device's registered P-256 key, used for RFC 8291 encryption.
    public var key: DeviceKey?
    /// For a webhook target: the device or sponsee the tenant's server is told about.
    public var recipient: WebhookRecipient?

    public init(
        id: String, platform: Platform, token: String, os: DeviceOS,
        userId: String? = nil, locale: String? = nil, key: DeviceKey? = nil, recipient: WebhookRecipient? = nil
    ) {
        self.id = id
        self.platform = platform
        self.token = token
        self.os = os
        self.userId = userId
        self.locale = locale
        self.key = key
        self.recipient = recipient
    }
}

/// Whom a webhook forward is about, as the tenant's server reads it in `data.recipient`: a
/// user of an app in webhook mode with the devices it registered (if any), a device without
/// a user, or an Evernym sponsee.
public struct WebhookRecipient: Codable, Sendable, Hashable {
    public var userId: String?
    /// A user's registered devices, each with its provider and token (empty: none).
    public var devices: [Device]?
    public var deviceId: String?
    /// The device's own provider and token, for a tenant that sends the push itself.
    public var platform: Platform?
    public var token: String?
    public var sponseeId: String?
    /// A type-3 com method's value: opaque to Herald, meant for the sponsor's back end.
    public var sponseeDetails: String?

    /// One of a user's registered devices, for a tenant that sends the push itself.
    public struct Device: Codable, Sendable, Hashable {
        public var deviceId: String
        public var platform: Platform
        public var token: String

        public init(deviceId: String, platform: Platform, token: String) {
            self.deviceId = deviceId
            self.platform = platform
            self.token = token
        }
    }

    public init(
        userId: String? = nil, devices: [Device]? = nil, deviceId: String? = nil, platform: Platform? = nil, token: String? = nil,
        sponseeId: String? = nil, sponseeDetails: String? = nil
    ) {
        self.userId = userId
        self.devices = devices
        self.deviceId = deviceId
        self.platform = platform
        self.token = token
        self.sponseeId = sponseeId
        self.sponseeDetails = sponseeDetails
    }
}

/// A device's encryption key: its P-256 public key (uncompressed point) and 16-byte auth
/// secret, both base64url without padding, and the key id the app gave it.
public struct DeviceKey: Codable, Sendable, Hashable {
    public var keyId: String
    public var p256dh: String
    public var auth: String
    public init(keyId: String, p256dh: String, auth: String) {
        self.keyId = keyId
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// The RSA public key registered with an email address (SPKI DER, base64), used for JWE.
public struct AddressKey: Codable, Sendable, Hashable {
    public var emailAddressId: String
    public var keyId: String
    public var publicKey: String
    public init(emailAddressId: String, keyId: String, publicKey: String) {
        self.emailAddressId = emailAddressId
        self.keyId = keyId
        self.publicKey = publicKey
    }
}
