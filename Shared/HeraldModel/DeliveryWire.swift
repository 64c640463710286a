import Foundation
import JSONKit

// The contracts of every delivery read and written without JSONDecoder/JSONEncoder: every
// delivery crosses Registration, Preferences, Encryption and a dispatcher as them, and the coders'
// per-value boxing was a quarter of those stages' CPU. Readers accept only what the
// synthesized `Decodable` conformances accept and throw `JSONReader.Mismatch` otherwise (the
// decoder then answers); writers produce the encoder's bytes. Tests compare both with the
// coders on generated values.

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
        var acceptedAt: Date?
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
            case "alert": try seen.insert(8); alert = try json.optional { try Alert(reading: &$0) }
            case "options": try seen.insert(9); options = try DeliveryOptions(reading: &json)
            case "device": try seen.insert(10); device = try DeviceTarget(reading: &json)
            case "addressKey": try seen.insert(11); addressKey = try json.optional { try AddressKey(reading: &$0) }
            case "acceptedAt": try seen.insert(12); acceptedAt = try json.optional { try $0.timestamp() }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4, 5, 6, 7, 9, 10)
        self.init(
            deliveryId: deliveryId, eventId: eventId, app: app, source: source, kind: kind, occurredAt: occurredAt,
            context: context, data: data, alert: alert, options: options, device: device!, addressKey: addressKey, acceptedAt: acceptedAt)
    }

    /// The delivery's JSON, written directly; its bytes equal `HeraldJSON.encode(self)`.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 640)
        json.beginObject()
        if let acceptedAt { json.key("acceptedAt"); json.timestamp(acceptedAt) }
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
            case "args": try seen.insert(1); args = try json.optional { try $0.stringMap() }
            case "title": try seen.insert(2); title = try json.optional { try $0.string() }
            case "body": try seen.insert(3); body = try json.optional { try $0.string() }
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
            case "ttlSeconds": try seen.insert(0); options.ttlSeconds = try json.optional { try $0.int() }
            case "priority": try seen.insert(1); options.priority = try json.optional { try $0.raw(Priority.self) }
            case "collapseKey": try seen.insert(2); options.collapseKey = try json.optional { try $0.string() }
            case "critical": try seen.insert(3); options.critical = try json.optional { try $0.bool() } ?? false
            case "encryption": try seen.insert(4); options.encryption = try json.optional { try $0.raw(EncryptionPolicy.self) }
            case "hideData": try seen.insert(5); options.hideData = try json.optional { try $0.bool() } ?? false
            default: try json.skip()
            }
        }
        if let ttl = options.ttlSeconds, DeliveryOptions.problem(ttl: ttl) != nil { throw JSONReader.Mismatch() }
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
            case "userId": try seen.insert(4); userId = try json.optional { try $0.string() }
            case "locale": try seen.insert(5); locale = try json.optional { try $0.string() }
            case "key": try seen.insert(6); key = try json.optional { try DeviceKey(reading: &$0) }
            case "recipient": try seen.insert(7); recipient = try json.optional { try WebhookRecipient(reading: &$0) }
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
            case "userId": try seen.insert(0); recipient.userId = try json.optional { try $0.string() }
            case "deviceId": try seen.insert(1); recipient.deviceId = try json.optional { try $0.string() }
            case "platform": try seen.insert(2); recipient.platform = try json.optional { try $0.raw(Platform.self) }
            case "token": try seen.insert(3); recipient.token = try json.optional { try $0.string() }
            case "sponseeId": try seen.insert(4); recipient.sponseeId = try json.optional { try $0.string() }
            case "sponseeDetails": try seen.insert(5); recipient.sponseeDetails = try json.optional { try $0.string() }
            case "devices":
                try seen.insert(6)
                recipient.devices = try json.optional { json in
                    var devices: [Device] = []
                    try json.array { json in devices.append(try Device(reading: &json)) }
                    return devices
                }
            default: try json.skip()
            }
        }
        self = recipient
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let deviceId { json.key("deviceId"); json.string(deviceId) }
        if let devices {
            json.key("devices")
            json.beginArray()
            for device in devices { device.write(to: &json) }
            json.endArray()
        }
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

extension WebhookRecipient.Device: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var deviceId: String?, platform: Platform?, token: String?
        try json.object { key, json in
            switch key {
            case "deviceId": try seen.insert(0); deviceId = try json.string()
            case "platform": try seen.insert(1); platform = try json.raw(Platform.self)
            case "token": try seen.insert(2); token = try json.string()
            default: try json.skip()
            }
        }
        guard let deviceId, let platform, let token else { throw JSONReader.Mismatch() }
        self.init(deviceId: deviceId, platform: platform, token: token)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("deviceId"); json.string(deviceId)
        json.key("platform"); json.string(platform.rawValue)
        json.key("token"); json.string(token)
        json.endObject()
    }
}
