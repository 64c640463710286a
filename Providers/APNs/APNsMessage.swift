import Crypto
import Foundation
import HeraldModel
import JSONKit

/// The APNs request for one dispatch request: its headers (`apns-push-type`,
/// `apns-priority`, `apns-expiration`, `apns-collapse-id`, `apns-id`) and its JSON body,
/// `{"aps": {...}, <data map>}`. The APNs dispatcher sends it (adding `apns-topic` and the
/// provider token); the encryption stage measures it against Apple's 4,096 bytes. The same
/// header rules serve iOS devices reached through FCM (`FCMMessage.apns`).
public struct APNsMessage: Sendable {
    /// Apple's limit on a notification's body, in bytes.
    public static let payloadLimit = 4096
    /// Apple's limit on `apns-collapse-id`, in bytes.
    public static let collapseIdLimit = 64
    /// The one top-level key of the body that is Apple's; the data map may not use it.
    public static let reservedDataKey = "aps"

    public var token: String
    /// Header names and values, lowercased names, in a fixed order.
    public var headers: [(name: String, value: String)]
    public var body: Data

    /// Builds the request for `request` as sent at `now`.
    public init(_ request: DispatchRequest, now: Date = Date()) {
        token = request.token
        headers = Self.headers(request, now: now).map { ($0.name, $0.value) }
        headers.append(("apns-id", Self.apnsId(deliveryId: request.deliveryId)))
        body = Self.body(request)
    }

    /// The alert an iOS device shows: the push's own, else the one only iOS shows (a token
    /// whose system Herald does not know, see `IOSHints.alert`).
    public static func alert(_ request: DispatchRequest) -> DispatchRequest.Notification? {
        request.notification ?? request.ios?.alert
    }

    /// Whether a push is silent: no visible alert, so it wakes the app in the background.
    public static func isBackground(_ request: DispatchRequest) -> Bool { alert(request) == nil }

    /// The headers APNs reads from any sender, FCM's `apns.headers` included: push type,
    /// priority (10 for an alert, to be shown at once; 5 for a background push, as Apple
    /// requires), expiration from the time left, and the collapse id cut to 64 bytes on a
    /// character boundary.
    public static func headers(_ request: DispatchRequest, now: Date) -> [(name: String, value: String)] {
        let background = isBackground(request)
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", background ? "background" : "alert"),
            ("apns-priority", background ? "5" : "10"),
        ]
        if let expiresAt = request.expiresAt {
            headers.append(("apns-expiration", String(expiration(expiresAt, now: now))))
        } else if request.ttlSeconds == 0 {
            // "Now or never": APNs tries once and does not store the push.
            headers.append(("apns-expiration", "0"))
        }
        if let collapseKey = request.collapseKey { headers.append(("apns-collapse-id", collapseId(collapseKey))) }
        return headers
    }

    /// `apns-expiration` (Unix seconds, rounded up) for `expiresAt`, at most four weeks
    /// after `now`; a moment already past is `now`, which APNs reads as "deliver now or never".
    public static func expiration(_ expiresAt: Date, now: Date) -> Int {
        let nowSeconds = Int(now.timeIntervalSince1970.rounded(.up))
        let left = expiresAt.timeIntervalSince1970.rounded(.up) - Double(nowSeconds)
        guard left > 0 else { return nowSeconds }
        return nowSeconds + (left < Double(DeliveryOptions.maximumTTL) ? Int(left) : DeliveryOptions.maximumTTL)
    }

    /// `key` cut to APNs' 64 bytes without splitting a character.
    public static func collapseId(_ key: String) -> String {
        guard key.utf8.count > collapseIdLimit else { return key }
        var cut = ""
        for character in key {
            if cut.utf8.count + String(character).utf8.count > collapseIdLimit { break }
            cut.append(character)
        }
        return cut
    }

    /// The `apns-id` of a delivery: a UUID derived from its id (the first 16 bytes of its
    /// SHA-256, as a version 8 UUID), the same on every retry, so APNs and the device can
    /// tell a retried push from a new one.
    public static func apnsId(deliveryId: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(deliveryId.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString
    }

    /// The body: `aps` (the alert, `mutable-content: 1` for a push the notification service
    /// extension opens, `content-available: 1` for a silent one, the interruption level and
    /// sound) and the data map's keys.
    public static func body(_ request: DispatchRequest) -> Data {
        let hints = request.ios ?? DispatchRequest.IOSHints()
        let background = isBackground(request)
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        // Keys in sorted order: `aps` among the data keys.
        let keys = (request.data.keys.filter { $0 != reservedDataKey } + [reservedDataKey]).sorted()
        for key in keys {
            json.key(key)
            guard key == reservedDataKey else { json.string(request.data[key]!); continue }
            json.beginObject()
            if let alert = alert(request) {
                json.key("alert")
                json.titleAndBody(title: alert.title, body: alert.body)
            }
            if hints.contentAvailable || background { json.key("content-available"); json.int(1) }
            if let level = hints.interruptionLevel, !background { json.key("interruption-level"); json.string(level) }
            if hints.mutableContent { json.key("mutable-content"); json.int(1) }
            if let sound = hints.sound, !background { json.key("sound"); json.string(sound) }
            json.endObject()
        }
        json.endObject()
        return json.data
    }

    /// The size of `request`'s body, what Apple's limit counts.
    public static func size(_ request: DispatchRequest) -> Int { body(request).count }
}
