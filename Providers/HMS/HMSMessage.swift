import Foundation
import HeraldModel

/// The Huawei Push Kit v1 `message` for one dispatch request (or several with the same
/// payload): the data map as one JSON string, the notification, Android urgency, TTL,
/// collapse key and `bi_tag`, and the tokens. iOS hints do not apply to Push Kit. The HMS
/// dispatcher sends it; the encryption stage measures it against Push Kit's limit.
public struct HMSMessage: Encodable, Sendable, Hashable {
    /// Push Kit's limit on the message body, tokens not counted.
    public static let bodyLimit = 4096

    public var data: String?
    public var notification: Notification?
    public var android: Android
    public var token: [String]

    public struct Notification: Encodable, Sendable, Hashable {
        public var title: String?
        public var body: String?
    }

    public struct Android: Encodable, Sendable, Hashable {
        public var collapseKey: Int?
        public var urgency: String
        public var ttl: String?
        /// Returned in Push Kit's delivery receipts: the delivery id for one token, the event id
        /// for a multicast (a receipt names the token too, so either identifies the delivery).
        public var biTag: String?
        public var notification: AndroidNotification?
        enum CodingKeys: String, CodingKey {
            case collapseKey = "collapse_key", urgency, ttl, biTag = "bi_tag", notification
        }
    }

    /// Push Kit needs a click action on notification messages; type 3 opens the app. A
    /// classified alert (`category`, e.g. `IM` or `ACCOUNT`, with importance `NORMAL`) is not
    /// counted as marketing, which Push Kit shows silently and caps at a few a day.
    public struct AndroidNotification: Encodable, Sendable, Hashable {
        public var clickAction: ClickAction
        public var category: String?
        public var importance: String?
        enum CodingKeys: String, CodingKey { case clickAction = "click_action", category, importance }
    }

    public struct ClickAction: Encodable, Sendable, Hashable {
        public var type: Int
    }

    /// Builds the message for `request` (and `tokens`, by default its own), as sent at `now`;
    /// `bi_tag` is `biTag`, by default the delivery id. Push Kit's collapse key is a number
    /// from -1 to 100: other collapse keys are left out.
    public init(_ request: DispatchRequest, tokens: [String]? = nil, biTag: String? = nil, now: Date = Date()) {
        data = request.data.isEmpty ? nil : String(decoding: (try? HeraldJSON.encode(request.data)) ?? Data(), as: UTF8.self)
        notification = request.notification.map { Notification(title: $0.title, body: $0.body) }
        android = Android(
            collapseKey: request.collapseKey.flatMap(Int.init).flatMap { (-1...100).contains($0) ? $0 : nil },
            urgency: request.priority == .high ? "HIGH" : "NORMAL",
            ttl: request.remainingTTL(at: now).map { "\($0)s" },
            biTag: biTag ?? request.deliveryId,
            notification: request.notification == nil ? nil : AndroidNotification(
                clickAction: ClickAction(type: 3), category: request.category, importance: request.category == nil ? nil : "NORMAL"))
        token = tokens ?? [request.token]
    }

    /// One message for `requests`, which share their payload (see `HMSMulticast`): the first
    /// one's content, every request's token in order, and `bi_tag` the delivery id for one
    /// request or the event id for several.
    public init(multicast requests: [DispatchRequest], now: Date = Date()) {
        precondition(!requests.isEmpty, "a message needs at least one request")
        let first = requests[0]
        self.init(first, tokens: requests.map(\.token), biTag: requests.count == 1 ? first.deliveryId : first.eventId, now: now)
    }

    /// The largest body Push Kit may be sent for `request`: with the longer of its two
    /// `bi_tag`s (delivery id alone, event id in a multicast). The encryption stage holds a
    /// payload to the limit by this, so whichever way the dispatcher sends it, it fits.
    public static func largestBodyByteCount(_ request: DispatchRequest, now: Date = Date()) -> Int {
        let longer = request.eventId.utf8.count > request.deliveryId.utf8.count ? request.eventId : request.deliveryId
        return HMSMessage(request, biTag: longer, now: now).bodyByteCount
    }

    /// The HTTP body of `messages:send`.
    public func requestBody(validateOnly: Bool = false) throws -> Data {
        struct Body: Encodable {
            var validate_only: Bool?
            var message: HMSMessage
        }
        return try HeraldJSON.encode(Body(validate_only: validateOnly ? true : nil, message: self))
    }

    /// The bytes Push Kit counts against its limit: the message without its tokens, encoded
    /// with escaped slashes (the longer form, so a message that fits here fits there).
    public var bodyByteCount: Int {
        (try? JSONEncoder().encode(WithoutTokens(message: self)).count) ?? Int.max
    }

    private enum CodingKeys: String, CodingKey { case data, notification, android, token }

    /// The message as Push Kit measures it.
    private struct WithoutTokens: Encodable {
        let message: HMSMessage
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(message.data, forKey: .data)
            try container.encodeIfPresent(message.notification, forKey: .notification)
            try container.encode(message.android, forKey: .android)
        }
    }
}
