import Foundation
import JSONKit

/// `herald.event.v1`: something happened upstream that devices should hear about.
/// Published by the gateway to `herald.events` with routing key `<source>.<kind>`.
public struct NotificationEvent: Contract, Hashable {
    public static let contractName = ContractName.event

    /// Idempotency key: the source's own message id when it has one.
    public var id: String
    public var app: String
    public var source: EventSource
    /// What happened, e.g. `auth`, `sign`, `message.created`, `email.received`, `value.changed`.
    public var kind: String
    public var occurredAt: Date
    public var audience: Audience
    /// Facts used by filters and templates (`channelId`, `sudoId`, `emailAddressId`, `requestor`, …).
    public var context: [String: String]
    /// The data the app receives.
    public var data: [String: String]
    public var alert: Alert?
    public var options: DeliveryOptions
    /// When Herald accepted the event (the gateway's confirm); retries end two hours after
    /// it. Absent for an event published straight to the queue: Registration then counts
    /// from when it resolved the event.
    public var acceptedAt: Date?

    public var messageId: String { id }
    public var correlationId: String { id }

    /// The routing key on `herald.events`.
    public var routingKey: String { "\(source.rawValue).\(kind)" }

    public init(
        id: String, app: String, source: EventSource, kind: String, occurredAt: Date,
        audience: Audience, context: [String: String] = [:], data: [String: String] = [:],
        alert: Alert? = nil, options: DeliveryOptions = DeliveryOptions(), acceptedAt: Date? = nil
    ) {
        self.id = id
        self.app = app
        self.source = source
        self.kind = kind
        self.occurredAt = occurredAt
        self.audience = audience
        self.context = context
        self.data = data
        self.alert = alert
        self.options = options
        self.acceptedAt = acceptedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, app, source, kind, occurredAt, audience, context, data, alert, options, acceptedAt
    }

    /// Decoding an event an integration posted (`POST …/events`): the app its path names (a
    /// `String`) replaces the body's `app`, and a body without `occurredAt` occurred at this
    /// instant (a `Date`), so the gateway decodes the body as it came.
    public static let postedApp = CodingUserInfoKey(rawValue: "herald.event.postedApp")!
    public static let postedAt = CodingUserInfoKey(rawValue: "herald.event.postedAt")!

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        app = try (decoder.userInfo[Self.postedApp] as? String) ?? c.decode(String.self, forKey: .app)
        source = try c.decode(EventSource.self, forKey: .source)
        kind = try c.decode(String.self, forKey: .kind)
        occurredAt = try c.decodeIfPresent(Date.self, forKey: .occurredAt) ?? (decoder.userInfo[Self.postedAt] as? Date) ?? c.decode(Date.self, forKey: .occurredAt)
        audience = try c.decode(Audience.self, forKey: .audience)
        context = try c.decodeIfPresent([String: String].self, forKey: .context) ?? [:]
        data = try c.decodeIfPresent([String: String].self, forKey: .data) ?? [:]
        alert = try c.decodeIfPresent(Alert.self, forKey: .alert)
        options = try c.decodeIfPresent(DeliveryOptions.self, forKey: .options) ?? DeliveryOptions()
        acceptedAt = try c.decodeIfPresent(Date.self, forKey: .acceptedAt)
        for (field, value) in [("id", id), ("app", app), ("kind", kind)] where value.isEmpty {
            throw DecodingError.dataCorrupted(.init(
                codingPath: c.codingPath + [CodingKeys(rawValue: field)!],
                debugDescription: "must not be empty"))
        }
    }
}

/// Which integration an event came from: an open name like `Platform`, each declared by its
/// source module (`SourceDescriptor`); the constants name the sources Herald ships.
public struct EventSource: RawRepresentable, Codable, Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// nil for a name that is not a valid source name.
    public init?(rawValue: String) {
        guard Platform.isValidName(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral name: String) {
        precondition(Platform.isValidName(name), "\"\(name)\" is not a source name")
        rawValue = name
    }

    public var description: String { rawValue }
    public static func < (a: EventSource, b: EventSource) -> Bool { a.rawValue < b.rawValue }

    /// The canonical `herald.event.v1` posted as it is (`POST …/events`).
    public static let api: EventSource = "api"
    /// Smart ID's sign-in and signing requests.
    public static let smartID: EventSource = "smartid"
    /// Evernym/Verity's sponsor forwards.
    public static let evernym: EventSource = "evernym"
    /// Upstra/Amity chat events.
    public static let upstra: EventSource = "upstra"
    /// Sudo email's received messages.
    public static let sudoEmail: EventSource = "sudo-email"
    /// Webcom datasync events.
    public static let webcom: EventSource = "webcom"
}

/// Who should hear about an event: exactly one of the forms, encoded as an object with
/// exactly one key (`{"users": ["u1"]}`).
public enum Audience: Codable, Sendable, Hashable {
    case users([String])
    case pushIds([String])
    case devices([String])
    case tokens([DirectToken])
    case emailAddressId(String)

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case users, pushIds, devices, tokens, emailAddressId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let present = CodingKeys.allCases.filter { c.contains($0) }
        guard present.count == 1, let key = present.first else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: c.codingPath,
                debugDescription: "must have exactly one of users, pushIds, devices, tokens, emailAddressId (found \(present.isEmpty ? "none" : present.map(\.stringValue).joined(separator: ", ")))"))
        }
        func nonEmptyList<T: Decodable>(_ type: T.Type) throws -> [T] {
            let list = try c.decode([T].self, forKey: key)
            if list.isEmpty {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: c.codingPath + [key], debugDescription: "must not be empty"))
            }
            return list
        }
        switch key {
        case .users: self = .users(try nonEmptyList(String.self))
        case .pushIds: self = .pushIds(try nonEmptyList(String.self))
        case .devices: self = .devices(try nonEmptyList(String.self))
        case .tokens: self = .tokens(try nonEmptyList(DirectToken.self))
        case .emailAddressId: self = .emailAddressId(try c.decode(String.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .users(let ids): try c.encode(ids, forKey: .users)
        case .pushIds(let ids): try c.encode(ids, forKey: .pushIds)
        case .devices(let ids): try c.encode(ids, forKey: .devices)
        case .tokens(let tokens): try c.encode(tokens, forKey: .tokens)
        case .emailAddressId(let id): try c.encode(id, forKey: .emailAddressId)
        }
    }
}

/// A provider token addressed directly, without a registered device (e.g. Evernym's `FCM:<token>`).
public struct DirectToken: Codable, Sendable, Hashable {
    public var platform: Platform
    public var token: String
    public init(platform: Platform, token: String) {
        self.platform = platform
        self.token = token
    }

    /// The token an Evernym com method's value names: the platform's name in capitals, a
    /// colon, the token (`FCM:<token>`, `HMS:<token>`); nil for any other value. Whether the
    /// platform runs here and takes the token is the provider registry's to say.
    public init?(comMethod value: String) {
        // By bytes: a colon and a combining mark after it are one Character.
        let bytes = Array(value.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let prefix = String(decoding: bytes[..<colon], as: UTF8.self)
        let token = String(decoding: bytes[(colon + 1)...], as: UTF8.self)
        guard prefix == prefix.uppercased(), let platform = Platform(rawValue: prefix.lowercased()), !token.isEmpty else { return nil }
        self.init(platform: platform, token: token)
    }
}

/// The alert shown to the user: a server-side template with arguments, or a literal title and body.
public enum Alert: Codable, Sendable, Hashable {
    case template(name: String, args: [String: String])
    case literal(title: String?, body: String?)

    private enum CodingKeys: String, CodingKey { case template, args, title, body }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let hasTemplate = c.contains(.template)
        let hasLiteral = c.contains(.title) || c.contains(.body)
        switch (hasTemplate, hasLiteral) {
        case (true, false):
            self = .template(
                name: try c.decode(String.self, forKey: .template),
                args: try c.decodeIfPresent([String: String].self, forKey: .args) ?? [:])
        case (false, true):
            self = .literal(
                title: try c.decodeIfPresent(String.self, forKey: .title),
                body: try c.decodeIfPresent(String.self, forKey: .body))
        default:
            throw DecodingError.dataCorrupted(.init(
                codingPath: c.codingPath,
                debugDescription: "must have either template (with optional args) or title/body, not both and not neither"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .template(let name, let args):
            try c.encode(name, forKey: .template)
            if !args.isEmpty { try c.encode(args, forKey: .args) }
        case .literal(let title, let body):
            try c.encodeIfPresent(title, forKey: .title)
            try c.encodeIfPresent(body, forKey: .body)
        }
    }
}

/// How an event should be delivered.
public struct DeliveryOptions: Codable, Sendable, Hashable {
    /// The longest TTL Herald accepts: four weeks, the longest FCM and Push Kit allow.
    public static let maximumTTL = 2_419_200

    /// Provider time to live; nil means the provider default.
    public var ttlSeconds: Int?
    public var priority: Priority?
    public var collapseKey: String?
    /// Critical events skip the user, channel and kind toggles (never the network switch).
    public var critical: Bool
    public var encryption: EncryptionPolicy?
    /// Deliver a "hidden data" notification: the app fetches the data itself.
    public var hideData: Bool

    public init(
        ttlSeconds: Int? = nil, priority: Priority? = nil, collapseKey: String? = nil,
        critical: Bool = false, encryption: EncryptionPolicy? = nil, hideData: Bool = false
    ) {
        self.ttlSeconds = ttlSeconds
        self.priority = priority
        self.collapseKey = collapseKey
        self.critical = critical
        self.encryption = encryption
        self.hideData = hideData
    }

    private enum CodingKeys: String, CodingKey {
        case ttlSeconds, priority, collapseKey, critical, encryption, hideData
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ttlSeconds = try c.decodeIfPresent(Int.self, forKey: .ttlSeconds)
        priority = try c.decodeIfPresent(Priority.self, forKey: .priority)
        collapseKey = try c.decodeIfPresent(String.self, forKey: .collapseKey)
        critical = try c.decodeIfPresent(Bool.self, forKey: .critical) ?? false
        encryption = try c.decodeIfPresent(EncryptionPolicy.self, forKey: .encryption)
        hideData = try c.decodeIfPresent(Bool.self, forKey: .hideData) ?? false
        if let problem = ttlSeconds.flatMap(Self.problem(ttl:)) {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [CodingKeys.ttlSeconds], debugDescription: problem))
        }
    }

    /// What is wrong with `ttl` as a TTL in seconds, or nil when it is one.
    public static func problem(ttl: Int) -> String? {
        if ttl < 0 { return "must not be negative" }
        if ttl > maximumTTL { return "must be at most \(maximumTTL) (four weeks)" }
        return nil
    }
}

public enum Priority: String, Codable, Sendable, Hashable, CaseIterable {
    case high, normal
}

/// Whether a payload must, may or must not be encrypted for the device or address key.
public enum EncryptionPolicy: String, Codable, Sendable, Hashable, CaseIterable {
    case required, preferred, none
}

extension NotificationEvent {
    /// The event's JSON, written directly: the gateway publishes one per request.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 384)
        json.beginObject()
        if let acceptedAt { json.key("acceptedAt"); json.timestamp(acceptedAt) }
        if let alert {
            json.key("alert")
            alert.write(to: &json)
        }
        json.key("app"); json.string(app)
        json.key("audience"); audience.write(to: &json)
        json.key("context"); json.stringMap(context)
        json.key("data"); json.stringMap(data)
        json.key("id"); json.string(id)
        json.key("kind"); json.string(kind)
        json.key("occurredAt"); json.timestamp(occurredAt)
        json.key("options"); options.write(to: &json)
        json.key("source"); json.string(source.rawValue)
        json.endObject()
        return json.data
    }
}

extension Audience {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        switch self {
        case .users(let ids): json.key("users"); json.strings(ids)
        case .pushIds(let ids): json.key("pushIds"); json.strings(ids)
        case .devices(let ids): json.key("devices"); json.strings(ids)
        case .tokens(let tokens):
            json.key("tokens")
            json.beginArray()
            for token in tokens {
                json.beginObject()
                json.key("platform"); json.string(token.platform.rawValue)
                json.key("token"); json.string(token.token)
                json.endObject()
            }
            json.endArray()
        case .emailAddressId(let id): json.key("emailAddressId"); json.string(id)
        }
        json.endObject()
    }
}

extension Alert {
    func write(to json: inout JSONWriter) {
        switch self {
        case .template(let name, let args):
            json.beginObject()
            if !args.isEmpty { json.key("args"); json.stringMap(args) }
            json.key("template"); json.string(name)
            json.endObject()
        case .literal(let title, let body):
            json.titleAndBody(title: title, body: body)
        }
    }
}

extension DeliveryOptions {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let collapseKey { json.key("collapseKey"); json.string(collapseKey) }
        json.key("critical"); json.bool(critical)
        if let encryption { json.key("encryption"); json.string(encryption.rawValue) }
        json.key("hideData"); json.bool(hideData)
        if let priority { json.key("priority"); json.string(priority.rawValue) }
        if let ttlSeconds { json.key("ttlSeconds"); json.int(ttlSeconds) }
        json.endObject()
    }
}
