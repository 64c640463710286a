import Foundation
import JSONKit

// NotificationEvent read with JSONReader (see DeliveryWire.swift); its writer is `wireJSON()`.

extension NotificationEvent: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var id = "", app = "", kind = ""
        var source = EventSource.api
        var occurredAt = Date.distantPast
        var audience: Audience?
        var context: [String: String]?, data: [String: String]?
        var alert: Alert?
        var options: DeliveryOptions?
        var acceptedAt: Date?
        try json.object { key, json in
            switch key {
            case "id": try seen.insert(0); id = try json.string()
            case "app": try seen.insert(1); app = try json.string()
            case "source": try seen.insert(2); source = try json.raw(EventSource.self)
            case "kind": try seen.insert(3); kind = try json.string()
            case "occurredAt": try seen.insert(4); occurredAt = try json.timestamp()
            case "audience": try seen.insert(5); audience = try Audience(reading: &json)
            case "context": try seen.insert(6); context = try json.optional { try $0.stringMap() }
            case "data": try seen.insert(7); data = try json.optional { try $0.stringMap() }
            case "alert": try seen.insert(8); alert = try json.optional { try Alert(reading: &$0) }
            case "options": try seen.insert(9); options = try json.optional { try DeliveryOptions(reading: &$0) }
            case "acceptedAt": try seen.insert(10); acceptedAt = try json.optional { try $0.timestamp() }
            default: try json.skip()
            }
        }
        try seen.require(0, 1, 2, 3, 4, 5)
        guard !id.isEmpty, !app.isEmpty, !kind.isEmpty else { throw JSONReader.Mismatch() }
        self.init(
            id: id, app: app, source: source, kind: kind, occurredAt: occurredAt, audience: audience!,
            context: context ?? [:], data: data ?? [:], alert: alert, options: options ?? DeliveryOptions(), acceptedAt: acceptedAt)
    }
}

extension Audience: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var audience: Audience?
        try json.object { key, json in
            switch key {
            case "users": try seen.insert(0); audience = .users(try json.strings())
            case "pushIds": try seen.insert(1); audience = .pushIds(try json.strings())
            case "devices": try seen.insert(2); audience = .devices(try json.strings())
            case "tokens":
                try seen.insert(3)
                var tokens: [DirectToken] = []
                try json.array { tokens.append(try DirectToken(reading: &$0)) }
                audience = .tokens(tokens)
            case "emailAddressId": try seen.insert(4); audience = .emailAddressId(try json.string())
            default: try json.skip()
            }
        }
        // Exactly one form, and a list form never empty (as the decoder requires).
        guard let audience, (0..<5).filter(seen.contains).count == 1 else { throw JSONReader.Mismatch() }
        switch audience {
        case .users(let list), .pushIds(let list), .devices(let list): if list.isEmpty { throw JSONReader.Mismatch() }
        case .tokens(let list): if list.isEmpty { throw JSONReader.Mismatch() }
        case .emailAddressId: break
        }
        self = audience
    }
}

extension DirectToken: JSONReadable {
    public init(reading json: inout JSONReader) throws {
        var seen = MemberSet()
        var platform = Platform.fcm
        var token = ""
        try json.object { key, json in
            switch key {
            case "platform": try seen.insert(0); platform = try json.raw(Platform.self)
            case "token": try seen.insert(1); token = try json.string()
            default: try json.skip()
            }
        }
        try seen.require(0, 1)
        self.init(platform: platform, token: token)
    }
}
