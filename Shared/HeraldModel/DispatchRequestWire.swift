import Foundation
import JSONKit

// DispatchRequest read with JSONReader and written with JSONWriter (see DeliveryWire.swift).

extension DispatchRequest: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var deliveryId = "", eventId = "", app = "", kind = "", deviceId = "", token = ""
        var platform = Platform.fcm
        var os = DeviceOS.other
        var data: [String: String] = [:]
        var notification: Notification?
        var ttlSeconds: Int?
        var priority = Priority.normal
        var collapseKey: String?
        var ios: IOSHints?
        var category: String?
        var expiresAt: Date?, firstAttemptAt: Date?, notBefore: Date?, acceptedAt: Date?
        var attempt = 1
        var forward: WebhookForward?
        try json.object { key, json in
            switch key {
            case "deliveryId": try seen.insert(0); deliveryId = try json.string()
            case "eventId": try seen.insert(1); eventId = try json.string()
            case "app": try seen.insert(2); app = try json.string()
            case "kind": try seen.insert(3); kind = try json.string()
            case "platform": try seen.insert(4); platform = try json.raw(Platform.self)
            case "deviceId": try seen.insert(5); deviceId = try json.string()
            case "token": try seen.insert(6); token = try json.string()
            case "os": try seen.insert(7); os = try json.raw(DeviceOS.self)
            case "data": try seen.insert(8); data = try json.stringMap()
            case "priority": try seen.insert(9); priority = try json.raw(Priority.self)
            case "attempt": try seen.insert(10); attempt = try json.int()
            case "notification": try seen.insert(11); notification = try json.optional { try Notification(reading: &$0) }
            case "ttlSeconds": try seen.insert(12); ttlSeconds = try json.optional { try $0.int() }
            case "collapseKey": try seen.insert(13); collapseKey = try json.optional { try $0.string() }
            case "ios": try seen.insert(14); ios = try json.optional { try IOSHints(reading: &$0) }
            case "expiresAt": try seen.insert(15); expiresAt = try json.optional { try $0.timestamp() }
            case "firstAttemptAt": try seen.insert(16); firstAttemptAt = try json.optional { try $0.timestamp() }
            case "forward": try seen.insert(17); forward = try json.optional { try WebhookForward(reading: &$0) }
            case "notBefore": try seen.insert(18); notBefore = try json.optional { try $0.timestamp() }
            case "acceptedAt": try seen.insert(19); acceptedAt = try json.optional { try $0.timestamp() }
            case "category": try seen.insert(20); category = try json.optional { try $0.string() }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
        if Self.problem(attempt: attempt, ttlSeconds: ttlSeconds) != nil { throw JSONReader.Mismatch() }
        self.init(
            deliveryId: deliveryId, eventId: eventId, app: app, kind: kind, platform: platform, deviceId: deviceId,
            token: token, os: os, data: data, notification: notification, ttlSeconds: ttlSeconds, priority: priority,
            collapseKey: collapseKey, ios: ios, expiresAt: expiresAt, attempt: attempt, firstAttemptAt: firstAttemptAt,
            forward: forward, notBefore: notBefore, acceptedAt: acceptedAt, category: category)
    }

    /// The request's JSON, written directly; its bytes equal `HeraldJSON.encode(self)`.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        if let acceptedAt { json.key("acceptedAt"); json.timestamp(acceptedAt) }
        json.key("app"); json.string(app)
        json.key("attempt"); json.int(attempt)
        if let category { json.key("category"); json.string(category) }
        if let collapseKey { json.key("collapseKey"); json.string(collapseKey) }
        json.key("data"); json.stringMap(data)
        json.key("deliveryId"); json.string(deliveryId)
        json.key("deviceId"); json.string(deviceId)
        json.key("eventId"); json.string(eventId)
        if let expiresAt { json.key("expiresAt"); json.timestamp(expiresAt) }
        if let firstAttemptAt { json.key("firstAttemptAt"); json.timestamp(firstAttemptAt) }
        if let forward {
            json.key("forward")
            json.beginObject()
            json.key("context"); json.stringMap(forward.context)
            json.key("occurredAt"); json.timestamp(forward.occurredAt)
            json.key("recipient"); forward.recipient.write(to: &json)
            json.key("source"); json.string(forward.source.rawValue)
            json.endObject()
        }
        if let ios {
            json.key("ios")
            json.beginObject()
            if let alert = ios.alert { json.key("alert"); json.titleAndBody(title: alert.title, body: alert.body) }
            json.key("contentAvailable"); json.bool(ios.contentAvailable)
            if let level = ios.interruptionLevel { json.key("interruptionLevel"); json.string(level) }
            json.key("mutableContent"); json.bool(ios.mutableContent)
            if let sound = ios.sound { json.key("sound"); json.string(sound) }
            json.endObject()
        }
        json.key("kind"); json.string(kind)
        if let notBefore { json.key("notBefore"); json.timestamp(notBefore) }
        if let notification {
            json.key("notification")
            json.titleAndBody(title: notification.title, body: notification.body)
        }
        json.key("os"); json.string(os.rawValue)
        json.key("platform"); json.string(platform.rawValue)
        json.key("priority"); json.string(priority.rawValue)
        json.key("token"); json.string(token)
        if let ttlSeconds { json.key("ttlSeconds"); json.int(ttlSeconds) }
        json.endObject()
        return json.data
    }
}

extension DispatchRequest.Notification: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var title: String?, body: String?
        try json.object { key, json in
            switch key {
            case "title": try seen.insert(0); title = try json.optional { try $0.string() }
            case "body": try seen.insert(1); body = try json.optional { try $0.string() }
            default: try json.skip()
            }
        }
        self.init(title: title, body: body)
    }
}

extension DispatchRequest.IOSHints: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var mutableContent = false, contentAvailable = false
        var alert: DispatchRequest.Notification?, interruptionLevel: String?, sound: String?
        try json.object { key, json in
            switch key {
            case "mutableContent": try seen.insert(0); mutableContent = try json.bool()
            case "contentAvailable": try seen.insert(1); contentAvailable = try json.bool()
            case "alert": try seen.insert(2); alert = try json.optional { try DispatchRequest.Notification(reading: &$0) }
            case "interruptionLevel": try seen.insert(3); interruptionLevel = try json.optional { try $0.string() }
            case "sound": try seen.insert(4); sound = try json.optional { try $0.string() }
            default: try json.skip()
            }
        }
        try seen.require(0, 1)
        self.init(mutableContent: mutableContent, contentAvailable: contentAvailable, alert: alert, interruptionLevel: interruptionLevel, sound: sound)
    }
}

extension DispatchRequest.WebhookForward: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var source = EventSource.api
        var occurredAt = Date.distantPast
        var context: [String: String] = [:]
        var recipient = WebhookRecipient()
        try json.object { key, json in
            switch key {
            case "source": try seen.insert(0); source = try json.raw(EventSource.self)
            case "occurredAt": try seen.insert(1); occurredAt = try json.timestamp()
            case "context": try seen.insert(2); context = try json.stringMap()
            case "recipient": try seen.insert(3); recipient = try WebhookRecipient(reading: &json)
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3)
        self.init(source: source, occurredAt: occurredAt, context: context, recipient: recipient)
    }
}
