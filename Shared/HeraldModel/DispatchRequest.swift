import Foundation

/// `herald.dispatch.v1`: the final provider payload for one token. Published by Encryption to
/// `herald.dispatch` with the platform as routing key, and back there by the retry tiers.
public struct DispatchRequest: Contract, Hashable {
    public static let contractName = ContractName.dispatch

    public var deliveryId: String
    public var eventId: String
    public var app: String
    public var kind: String
    public var platform: Platform
    public var deviceId: String
    public var token: String
    public var os: DeviceOS
    /// The data map the app receives (see the data-map section of the architecture docs).
    public var data: [String: String]
    public var notification: Notification?
    public var ttlSeconds: Int?
    public var priority: Priority
    public var collapseKey: String?
    /// iOS-specific hints (APNs fields carried through FCM or HMS).
    public var ios: IOSHints?
    /// What kind of alert this is, for a provider that classifies alerts (Push Kit's
    /// `android.notification.category`: `IM` for chat, `ACCOUNT` for a sign-in); nil for
    /// none, which Push Kit counts as marketing.
    public var category: String?
    /// After this instant the delivery is pointless: it is dropped with outcome `expired`.
    public var expiresAt: Date?
    /// 1 for the first attempt, incremented by each retry.
    public var attempt: Int
    /// When the first attempt was made.
    public var firstAttemptAt: Date?
    /// When Herald accepted the event: retries stop two hours after it (after the first
    /// attempt when absent, as for a request from an older Herald).
    public var acceptedAt: Date?
    /// Not to be sent before this instant: a retry that must wait longer than the longest
    /// delay tier goes round the tiers until then.
    public var notBefore: Date?
    /// For `webhook`: what the forward tells the tenant beside `data` (the event's own data)
    /// and `notification` (the rendered alert).
    public var forward: WebhookForward?

    public var messageId: String { "\(deliveryId)#\(attempt)" }
    public var correlationId: String { eventId }

    /// The most attempts a request may count (retries end two hours after the first, a
    /// dozen or so attempts): a larger number is refused when read, so no arithmetic on it
    /// can overflow.
    public static let maximumAttempt = 1_000

    /// What is wrong with a read request's numbers, as (field, reason), or nil.
    static func problem(attempt: Int, ttlSeconds: Int?) -> (field: CodingKeys, reason: String)? {
        if !(1...maximumAttempt).contains(attempt) { return (.attempt, "must be 1 to \(maximumAttempt)") }
        if let problem = ttlSeconds.flatMap(DeliveryOptions.problem(ttl:)) { return (.ttlSeconds, problem) }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case deliveryId, eventId, app, kind, platform, deviceId, token, os, data, notification, ttlSeconds, priority,
             collapseKey, ios, category, expiresAt, attempt, firstAttemptAt, notBefore, forward, acceptedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deliveryId = try c.decode(String.self, forKey: .deliveryId)
        eventId = try c.decode(String.self, forKey: .eventId)
        app = try c.decode(String.self, forKey: .app)
        kind = try c.decode(String.self, forKey: .kind)
        platform = try c.decode(Platform.self, forKey: .platform)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        token = try c.decode(String.self, forKey: .token)
        os = try c.decode(DeviceOS.self, forKey: .os)
        data = try c.decode([String: String].self, forKey: .data)
        notification = try c.decodeIfPresent(Notification.self, forKey: .notification)
        ttlSeconds = try c.decodeIfPresent(Int.self, forKey: .ttlSeconds)
        priority = try c.decode(Priority.self, forKey: .priority)
        collapseKey = try c.decodeIfPresent(String.self, forKey: .collapseKey)
        ios = try c.decodeIfPresent(IOSHints.self, forKey: .ios)
        category = try c.decodeIfPresent(String.self, forKey: .category)
        expiresAt = try c.decodeIfPresent(Date.self, forKey: .expiresAt)
        attempt = try c.decode(Int.self, forKey: .attempt)
        firstAttemptAt = try c.decodeIfPresent(Date.self, forKey: .firstAttemptAt)
        notBefore = try c.decodeIfPresent(Date.self, forKey: .notBefore)
        forward = try c.decodeIfPresent(WebhookForward.self, forKey: .forward)
        acceptedAt = try c.decodeIfPresent(Date.self, forKey: .acceptedAt)
        if let (field, reason) = Self.problem(attempt: attempt, ttlSeconds: ttlSeconds) {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [field], debugDescription: reason))
        }
    }

    public init(
        deliveryId: String, eventId: String, app: String, kind: String, platform: Platform,
        deviceId: String, token: String, os: DeviceOS, data: [String: String],
        notification: Notification? = nil, ttlSeconds: Int? = nil, priority: Priority = .normal,
        collapseKey: String? = nil, ios: IOSHints? = nil, expiresAt: Date? = nil,
        attempt: Int = 1, firstAttemptAt: Date? = nil, forward: WebhookForward? = nil, notBefore: Date? = nil,
        acceptedAt: Date? = nil, category: String? = nil
    ) {
        self.category = category
        self.deliveryId = deliveryId
        self.eventId = eventId
        self.app = app
        self.kind = kind
        self.platform = platform
        self.deviceId = deviceId
        self.token = token
        self.os = os
        self.data = data
        self.notification = notification
        self.ttlSeconds = ttlSeconds
        self.priority = priority
        self.collapseKey = collapseKey
        self.ios = ios
        self.expiresAt = expiresAt
        self.attempt = attempt
        self.firstAttemptAt = firstAttemptAt
        self.forward = forward
        self.notBefore = notBefore
        self.acceptedAt = acceptedAt
    }

    /// The event's part of a webhook forward that the provider payload does not carry.
    public struct WebhookForward: Codable, Sendable, Hashable {
        public var source: EventSource
        public var occurredAt: Date
        public var context: [String: String]
        public var recipient: WebhookRecipient

        /// The context key under which the gateway keeps an upstream's own message (JSON
        /// text) for a forward: the forward carries it as `forwarded`, out of its context.
        public static let upstreamMessageKey = "forwarded"

        public init(source: EventSource, occurredAt: Date, context: [String: String], recipient: WebhookRecipient) {
            self.source = source
            self.occurredAt = occurredAt
            self.context = context
            self.recipient = recipient
        }
    }

    /// The visible part of a push.
    public struct Notification: Codable, Sendable, Hashable {
        public var title: String?
        public var body: String?
        public init(title: String?, body: String?) {
            self.title = title
            self.body = body
        }
    }

    /// Fields an iOS device needs: `mutable-content` lets a notification service extension
    /// decrypt and rewrite an encrypted push; `interruption-level` and `sound` say how the
    /// alert is shown.
    public struct IOSHints: Codable, Sendable, Hashable {
        public var mutableContent: Bool
        public var contentAvailable: Bool
        /// The alert only an iOS device shows, for a token whose system Herald does not know
        /// (an Evernym `FCM:` com method): FCM's `apns` block carries it, while Android's
        /// handler gets the data alone (no top-level `notification`).
        public var alert: Notification?
        /// `aps.interruption-level`: `time-sensitive` for a sign-in or signing request, which
        /// breaks through Focus.
        public var interruptionLevel: String?
        /// `aps.sound`: `default` for a chat message.
        public var sound: String?

        public init(mutableContent: Bool = false, contentAvailable: Bool = false, alert: Notification? = nil, interruptionLevel: String? = nil, sound: String? = nil) {
            self.mutableContent = mutableContent
            self.contentAvailable = contentAvailable
            self.alert = alert
            self.interruptionLevel = interruptionLevel
            self.sound = sound
        }
    }

    /// Seconds left at `now` until the request expires (at least 0, at most
    /// `DeliveryOptions.maximumTTL`, FCM's and Push Kit's four weeks), or its TTL when it has no
    /// expiry, or nil for the provider's default.
    public func remainingTTL(at now: Date) -> Int? {
        let maximum = DeliveryOptions.maximumTTL
        if let expiresAt {
            // A date however far off (or not a number) cannot trap the conversion.
            let interval = expiresAt.timeIntervalSince(now).rounded(.down)
            guard interval > 0 else { return 0 }
            return interval < Double(maximum) ? Int(interval) : maximum
        }
        return ttlSeconds.map { min(maximum, max(0, $0)) }
    }
}
