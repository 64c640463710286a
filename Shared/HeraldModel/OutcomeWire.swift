import Foundation
import JSONKit

// Outcome read with JSONReader and written with JSONWriter (see DeliveryWire.swift).

extension Outcome: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var deliveryId = "", eventId = "", app = ""
        var status = OutcomeStatus.failed
        var reason: String?, providerCode: String?, deviceId: String?
        var platform: Platform?
        var at = Date.distantPast
        try json.object { key, json in
            switch key {
            case "deliveryId": try seen.insert(0); deliveryId = try json.string()
            case "eventId": try seen.insert(1); eventId = try json.string()
            case "app": try seen.insert(2); app = try json.string()
            case "status": try seen.insert(3); status = try json.raw(OutcomeStatus.self)
            case "at": try seen.insert(4); at = try json.timestamp()
            case "reason": try seen.insert(5); reason = try json.optional { try $0.string() }
            case "providerCode": try seen.insert(6); providerCode = try json.optional { try $0.string() }
            case "platform": try seen.insert(7); platform = try json.optional { try $0.string() }.flatMap(Platform.init(rawValue:))
            case "deviceId": try seen.insert(8); deviceId = try json.optional { try $0.string() }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4)
        self.init(deliveryId: deliveryId, eventId: eventId, app: app, status: status, reason: reason, providerCode: providerCode, at: at, platform: platform, deviceId: deviceId)
    }

    /// The outcome's JSON, written directly; its bytes equal `HeraldJSON.encode(self)`.
    public func wireJSON() throws -> Data {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("app"); json.string(app)
        json.key("at"); json.timestamp(at)
        json.key("deliveryId"); json.string(deliveryId)
        if let deviceId { json.key("deviceId"); json.string(deviceId) }
        json.key("eventId"); json.string(eventId)
        if let platform { json.key("platform"); json.string(platform.rawValue) }
        if let providerCode { json.key("providerCode"); json.string(providerCode) }
        if let reason { json.key("reason"); json.string(reason) }
        json.key("status"); json.string(status.rawValue)
        json.endObject()
        return json.data
    }
}
