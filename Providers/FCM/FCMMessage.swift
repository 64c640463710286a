import APNs
import Foundation
import HeraldModel
import JSONKit

/// The FCM HTTP v1 `message` for one dispatch request: token, data, notification, Android
/// TTL, priority and collapse key, and for iOS devices the APNs headers and `aps` payload.
/// The FCM dispatcher sends it; the encryption stage measures it against FCM's limit.
public struct FCMMessage: Encodable, Sendable, Hashable {
    /// FCM's limit on a message to a token: the bytes of the data map's keys and values.
    public static let dataLimit = 4096
    /// Data keys FCM refuses (exact names); keys starting with `google.` or `gcm.` are refused too.
    public static let reservedDataKeys: Set<String> = ["from", "message_type", "notification"]
    /// FCM's longest TTL, four weeks (Push Kit's too, and the longest Herald accepts).
    public static let maximumTTL = DeliveryOptions.maximumTTL

    public var token: String
    public var data: [String: String]?
    public var notification: Notification?
    public var android: Android?
    public var apns: APNs?

    public struct Notification: Encodable, Sendable, Hashable {
        public var title: String?
        public var body: String?
    }

    public struct Android: Encodable, Sendable, Hashable {
        public var collapseKey: String?
        public var priority: String
        public var ttl: String?
        enum CodingKeys: String, CodingKey {
            case collapseKey = "collapse_key", priority, ttl
        }
    }

    public struct APNs: Encodable, Sendable, Hashable {
        public var headers: [String: String]
        /// Left out when `aps` would be empty (a plain alert lives in `notification`).
        public var payload: Payload?
    }

    public struct Payload: Encodable, Sendable, Hashable {
        public var aps: APS
    }

    public struct APS: Encodable, Sendable, Hashable {
        /// Only for an alert iOS alone shows (`IOSHints.alert`): a top-level `notification`
        /// is FCM's to map into `aps` itself.
        public var alert: Notification? = nil
        public var mutableContent: Int? = nil
        public var contentAvailable: Int? = nil
        public var interruptionLevel: String? = nil
        public var sound: String? = nil
        enum CodingKeys: String, CodingKey {
            case alert, mutableContent = "mutable-content", contentAvailable = "content-available",
                 interruptionLevel = "interruption-level", sound
        }
    }

    /// Builds the message for `request` as sent at `now`: the TTL is what remains until
    /// `expiresAt`, so a retried message does not outlive the original request.
    public init(_ request: DispatchRequest, now: Date = Date()) {
        token = request.token
        data = request.data.isEmpty ? nil : request.data
        notification = request.notification.map { Notification(title: $0.title, body: $0.body) }
        let ttl = request.remainingTTL(at: now)
        android = Android(
            collapseKey: request.collapseKey,
            priority: request.priority == .high ? "HIGH" : "NORMAL",
            ttl: ttl.map { "\($0)s" })
        // An iOS device's push, or one whose device may be an iPhone (an alert only iOS shows).
        if request.os == .ios || request.ios?.alert != nil {
            let hints = request.ios ?? DispatchRequest.IOSHints()
            let background = APNsMessage.isBackground(request)
            let headers = Dictionary(APNsMessage.headers(request, now: now).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            let aps = APS(
                alert: request.notification == nil ? hints.alert.map { Notification(title: $0.title, body: $0.body) } : nil,
                mutableContent: hints.mutableContent ? 1 : nil,
                contentAvailable: hints.contentAvailable || background ? 1 : nil,
                interruptionLevel: background ? nil : hints.interruptionLevel,
                sound: background ? nil : hints.sound)
            apns = APNs(headers: headers, payload: aps == APS() ? nil : Payload(aps: aps))
        }
    }


    /// The HTTP body of `messages:send`, written directly (the dispatcher writes one per
    /// send); its bytes equal `encodedRequestBody(validateOnly:)`'s.
    public func requestBody(validateOnly: Bool = false) throws -> Data {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("message")
        write(to: &json)
        if validateOnly { json.key("validate_only"); json.bool(true) }
        json.endObject()
        return json.data
    }

    /// The HTTP body of `messages:send` through `JSONEncoder`: the reference the tests hold
    /// `requestBody` to.
    public func encodedRequestBody(validateOnly: Bool = false) throws -> Data {
        struct Body: Encodable {
            var validate_only: Bool?
            var message: FCMMessage
        }
        return try HeraldJSON.encode(Body(validate_only: validateOnly ? true : nil, message: self))
    }

    /// The message as the encoder writes it (sorted keys, optionals left out).
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let android {
            json.key("android")
            json.beginObject()
            if let collapseKey = android.collapseKey { json.key("collapse_key"); json.string(collapseKey) }
            json.key("priority"); json.string(android.priority)
            if let ttl = android.ttl { json.key("ttl"); json.string(ttl) }
            json.endObject()
        }
        if let apns {
            json.key("apns")
            json.beginObject()
            json.key("headers"); json.stringMap(apns.headers)
            if let payload = apns.payload {
                json.key("payload")
                json.beginObject()
                json.key("aps")
                json.beginObject()
                if let alert = payload.aps.alert { json.key("alert"); json.titleAndBody(title: alert.title, body: alert.body) }
                if let value = payload.aps.contentAvailable { json.key("content-available"); json.int(value) }
                if let value = payload.aps.interruptionLevel { json.key("interruption-level"); json.string(value) }
                if let value = payload.aps.mutableContent { json.key("mutable-content"); json.int(value) }
                if let value = payload.aps.sound { json.key("sound"); json.string(value) }
                json.endObject()
                json.endObject()
            }
            json.endObject()
        }
        if let data { json.key("data"); json.stringMap(data) }
        if let notification {
            json.key("notification")
            json.titleAndBody(title: notification.title, body: notification.body)
        }
        json.key("token"); json.string(token)
        json.endObject()
    }

    /// What FCM adds to the APNs body it makes of a message (`gcm.message_id`, `google.c.*`
    /// keys), kept free below Apple's limit.
    public static let apnsOverhead = 128

    /// Whether `request` fits FCM's limits: the data map's keys and values and the
    /// notification's title and body at most 4,096 bytes; and for a push an iPhone may get
    /// (an iOS device's, or one with an alert only iOS shows), the APNs body FCM makes of it
    /// (the alert, `aps`, the data escaped as JSON, FCM's own keys) within Apple's 4,096.
    public static func fits(_ request: DispatchRequest) -> Bool {
        let notification = request.notification.map { ($0.title?.utf8.count ?? 0) + ($0.body?.utf8.count ?? 0) } ?? 0
        guard dataSize(request.data) + notification <= dataLimit else { return false }
        guard request.os == .ios || request.ios?.alert != nil else { return true }
        return APNsMessage.size(request) + apnsOverhead <= APNsMessage.payloadLimit
    }

    /// The bytes FCM counts against its limit: the keys and values of the data map.
    public static func dataSize(_ data: [String: String]) -> Int {
        data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// Whether FCM refuses `key` as a data key.
    public static func isReservedDataKey(_ key: String) -> Bool {
        reservedDataKeys.contains(key) || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }
}
