import Foundation

// Delivery and DispatchRequest read and written without JSONDecoder/JSONEncoder: every
// delivery crosses Preferences, Encryption and a dispatcher as one of them, and the coders'
// per-value boxing was a quarter of those stages' CPU. Readers accept only what the
// synthesized `Decodable` conformances accept and throw `JSONReader.Mismatch` otherwise (the
// decoder then answers); writers produce the encoder's bytes. Tests compare both with the
// coders on generated values.

/// Which members of an object have been read: a duplicate or a missing required member is a
/// mismatch (the decoder then decides).
struct MemberSet {
    private var bits: UInt32 = 0

    mutating func insert(_ member: Int) throws {
        let bit: UInt32 = 1 << UInt32(member)
        guard bits & bit == 0 else { throw JSONReader.Mismatch() }
        bits |= bit
    }

    func contains(_ member: Int) -> Bool { bits & (1 << UInt32(member)) != 0 }

    func require(_ members: Int...) throws {
        for member in members where !contains(member) { throw JSONReader.Mismatch() }
    }
}

/// A member that must not be null; `nil` when it is (an optional member's absence).
private func optional<T>(_ json: inout JSONReader, _ read: (inout JSONReader) throws -> T) throws -> T? {
    try json.null() ? nil : read(&json)
}

extension Delivery: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var deliveryId = "", eventId = "", app = "", kind = ""
        var source = EventSource.api
        var occurredAt = Date.distantPast
        var context: [String: String] = [:], data: [String: String] = [:]
        var alert: Alert?
        var options = DeliveryOptions()
        var device: DeviceTarget?
        var addressKey: AddressKey?
        try json.object { key, json in
            switch key {
            case "deliveryId": try seen.insert(0); deliveryId = try json.string()
            case "eventId": try seen.insert(1); eventId = try json.string()
            case "app": try seen.insert(2); app = try json.string()
            case "source": try seen.insert(3); source = try json.raw(EventSource.self)
            case "kind": try seen.insert(4); kind = try json.string()
            case "occurredAt": try seen.insert(5); occurredAt = try json.timestamp()
            case "context": try seen.insert(6); context = try json.stringMap()
            case "data": try seen.insert(7); data = try json.stringMap()
            case "alert": try seen.insert(8); alert = try optional(&json) { try Alert(reading: &$0) }
            case "options": try seen.insert(9); options = try DeliveryOptions(reading: &json)
            case "device": try seen.insert(10); device = try DeviceTarget(reading: &json)
            case "addressKey": try seen.insert(11); addressKey = try optional(&json) { try AddressKey(reading: &$0) }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4, 5, 6, 7, 9, 10)
        self.init(
            deliveryId: deliveryId, eventId: eventId, app: app, source: source, kind: kind, occurredAt: occurredAt,
            context: context, data: data, alert: alert, options: options, device: device!, addressKey: addressKey)
    }

    /// The delivery's JSON, written directly; its bytes equal `HeraldJSON.encode(self)`.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 640)
        json.beginObject()
        if let addressKey { json.key("addressKey"); addressKey.write(to: &json) }
        if let alert { json.key("alert"); alert.write(to: &json) }
        json.key("app"); json.string(app)
        json.key("context"); json.stringMap(context)
        json.key("data"); json.stringMap(data)
        json.key("deliveryId"); json.string(deliveryId)
        json.key("device"); device.write(to: &json)
        json.key("eventId"); json.string(eventId)
        json.key("kind"); json.string(kind)
        json.key("occurredAt"); json.timestamp(occurredAt)
        json.key("options"); options.write(to: &json)
        json.key("source"); json.string(source.rawValue)
        json.endObject()
        return json.data
    }
}

extension Alert: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var template: String?, args: [String: String]?, title: String?, body: String?
        try json.object { key, json in
            switch key {
            case "template": try seen.insert(0); template = try json.string()
            case "args": try seen.insert(1); args = try optional(&json) { try $0.stringMap() }
            case "title": try seen.insert(2); title = try optional(&json) { try $0.string() }
            case "body": try seen.insert(3); body = try optional(&json) { try $0.string() }
            default: try json.skip()
            }
        }
        // As the decoder: a member present with null still counts as present.
        switch (seen.contains(0), seen.contains(2) || seen.contains(3)) {
        case (true, false): self = .template(name: template!, args: args ?? [:])
        case (false, true): self = .literal(title: title, body: body)
        default: throw JSONReader.Mismatch()
        }
    }
}

extension DeliveryOptions: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var options = DeliveryOptions()
        try json.object { key, json in
            switch key {
            case "ttlSeconds": try seen.insert(0); options.ttlSeconds = try optional(&json) { try $0.int() }
            case "priority": try seen.insert(1); options.priority = try optional(&json) { try $0.raw(Priority.self) }
            case "collapseKey": try seen.insert(2); options.collapseKey = try optional(&json) { try $0.string() }
            case "critical": try seen.insert(3); options.critical = try optional(&json) { try $0.bool() } ?? false
            case "encryption": try seen.insert(4); options.encryption = try optional(&json) { try $0.raw(EncryptionPolicy.self) }
            case "hideData": try seen.insert(5); options.hideData = try optional(&json) { try $0.bool() } ?? false
            default: try json.skip()
            }
        }
        if let ttl = options.ttlSeconds, ttl < 0 { throw JSONReader.Mismatch() }
        self = options
    }
}

extension DeviceTarget: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var id = "", token = ""
        var platform = Platform.fcm
        var os = DeviceOS.other
        var userId: String?, locale: String?
        var key: DeviceKey?
        var recipient: WebhookRecipient?
        try json.object { name, json in
            switch name {
            case "id": try seen.insert(0); id = try json.string()
            case "platform": try seen.insert(1); platform = try json.raw(Platform.self)
            case "token": try seen.insert(2); token = try json.string()
            case "os": try seen.insert(3); os = try json.raw(DeviceOS.self)
            case "userId": try seen.insert(4); userId = try optional(&json) { try $0.string() }
            case "locale": try seen.insert(5); locale = try optional(&json) { try $0.string() }
            case "key": try seen.insert(6); key = try optional(&json) { try DeviceKey(reading: &$0) }
            case "recipient": try seen.insert(7); recipient = try optional(&json) { try WebhookRecipient(reading: &$0) }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3)
        self.init(id: id, platform: platform, token: token, os: os, userId: userId, locale: locale, key: key, recipient: recipient)
    }

    /// Writes the device as the encoder does (for encoders of many deliveries of one event).
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(id)
        if let key { json.key("key"); key.write(to: &json) }
        if let locale { json.key("locale"); json.string(locale) }
        json.key("os"); json.string(os.rawValue)
        json.key("platform"); json.string(platform.rawValue)
        if let recipient { json.key("recipient"); recipient.write(to: &json) }
        json.key("token"); json.string(token)
        if let userId { json.key("userId"); json.string(userId) }
        json.endObject()
    }
}

extension WebhookRecipient: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var recipient = WebhookRecipient()
        try json.object { key, json in
            switch key {
            case "userId": try seen.insert(0); recipient.userId = try optional(&json) { try $0.string() }
            case "deviceId": try seen.insert(1); recipient.deviceId = try optional(&json) { try $0.string() }
            case "platform": try seen.insert(2); recipient.platform = try optional(&json) { try $0.raw(Platform.self) }
            case "token": try seen.insert(3); recipient.token = try optional(&json) { try $0.string() }
            case "sponseeId": try seen.insert(4); recipient.sponseeId = try optional(&json) { try $0.string() }
            case "sponseeDetails": try seen.insert(5); recipient.sponseeDetails = try optional(&json) { try $0.string() }
            default: try json.skip()
            }
        }
        self = recipient
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let deviceId { json.key("deviceId"); json.string(deviceId) }
        if let platform { json.key("platform"); json.string(platform.rawValue) }
        if let sponseeDetails { json.key("sponseeDetails"); json.string(sponseeDetails) }
        if let sponseeId { json.key("sponseeId"); json.string(sponseeId) }
        if let token { json.key("token"); json.string(token) }
        if let userId { json.key("userId"); json.string(userId) }
        json.endObject()
    }
}

extension DeviceKey: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var keyId = "", p256dh = "", auth = ""
        try json.object { key, json in
            switch key {
            case "keyId": try seen.insert(0); keyId = try json.string()
            case "p256dh": try seen.insert(1); p256dh = try json.string()
            case "auth": try seen.insert(2); auth = try json.string()
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2)
        self.init(keyId: keyId, p256dh: p256dh, auth: auth)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("auth"); json.string(auth)
        json.key("keyId"); json.string(keyId)
        json.key("p256dh"); json.string(p256dh)
        json.endObject()
    }
}

extension AddressKey: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var emailAddressId = "", keyId = "", publicKey = ""
        try json.object { key, json in
            switch key {
            case "emailAddressId": try seen.insert(0); emailAddressId = try json.string()
            case "keyId": try seen.insert(1); keyId = try json.string()
            case "publicKey": try seen.insert(2); publicKey = try json.string()
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2)
        self.init(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKey)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("emailAddressId"); json.string(emailAddressId)
        json.key("keyId"); json.string(keyId)
        json.key("publicKey"); json.string(publicKey)
        json.endObject()
    }
}

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
        var expiresAt: Date?, firstAttemptAt: Date?
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
            case "notification": try seen.insert(11); notification = try optional(&json) { try Notification(reading: &$0) }
            case "ttlSeconds": try seen.insert(12); ttlSeconds = try optional(&json) { try $0.int() }
            case "collapseKey": try seen.insert(13); collapseKey = try optional(&json) { try $0.string() }
            case "ios": try seen.insert(14); ios = try optional(&json) { try IOSHints(reading: &$0) }
            case "expiresAt": try seen.insert(15); expiresAt = try optional(&json) { try $0.timestamp() }
            case "firstAttemptAt": try seen.insert(16); firstAttemptAt = try optional(&json) { try $0.timestamp() }
            case "forward": try seen.insert(17); forward = try optional(&json) { try WebhookForward(reading: &$0) }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
        self.init(
            deliveryId: deliveryId, eventId: eventId, app: app, kind: kind, platform: platform, deviceId: deviceId,
            token: token, os: os, data: data, notification: notification, ttlSeconds: ttlSeconds, priority: priority,
            collapseKey: collapseKey, ios: ios, expiresAt: expiresAt, attempt: attempt, firstAttemptAt: firstAttemptAt,
            forward: forward)
    }

    /// The request's JSON, written directly; its bytes equal `HeraldJSON.encode(self)`.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("app"); json.string(app)
        json.key("attempt"); json.int(attempt)
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
            json.key("contentAvailable"); json.bool(ios.contentAvailable)
            json.key("mutableContent"); json.bool(ios.mutableContent)
            json.endObject()
        }
        json.key("kind"); json.string(kind)
        if let notification {
            json.key("notification")
            json.beginObject()
            if let body = notification.body { json.key("body"); json.string(body) }
            if let title = notification.title { json.key("title"); json.string(title) }
            json.endObject()
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
            case "title": try seen.insert(0); title = try optional(&json) { try $0.string() }
            case "body": try seen.insert(1); body = try optional(&json) { try $0.string() }
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
        try json.object { key, json in
            switch key {
            case "mutableContent": try seen.insert(0); mutableContent = try json.bool()
            case "contentAvailable": try seen.insert(1); contentAvailable = try json.bool()
            default: try json.skip()
            }
        }
        try seen.require(0, 1)
        self.init(mutableContent: mutableContent, contentAvailable: contentAvailable)
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
