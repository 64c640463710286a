import Foundation
import HeraldModel
import JSONKit

// Diagnostic: what a contract's JSON costs, and where (coders, timestamps, sorted keys).
func measure(_ name: String, _ count: Int = 20_000, _ body: () throws -> Void) rethrows {
    for _ in 0..<1000 { try body() }
    let start = ContinuousClock.now
    for _ in 0..<count { try body() }
    let elapsed = ContinuousClock.now - start
    let micros = Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6
    print(String(format: "%-44@ %8.2f µs", name as NSString, micros / Double(count)))
}

let delivery = Delivery(
    eventId: "smartid-b12345678r1s-0-1764000000000-1", app: "demo", source: .smartID, kind: "smartid.auth",
    occurredAt: Date(), context: ["requestor": "Bench", "type": "AUTH"], data: ["event": "e1", "kind": "smartid.auth", "requestor": "Bench"],
    device: DeviceTarget(id: "dev-1", platform: .fcm, token: String(repeating: "t", count: 150), os: .android))
let deliveryData = try HeraldJSON.encode(delivery)
let dispatch = DispatchRequest(
    deliveryId: delivery.deliveryId, eventId: delivery.eventId, app: "demo", kind: "smartid.auth", platform: .fcm,
    deviceId: "dev-1", token: String(repeating: "t", count: 150), os: .android,
    data: ["event": "e1", "kind": "smartid.auth", "v": "1", "ct": String(repeating: "x", count: 300)], ttlSeconds: 300,
    expiresAt: Date().addingTimeInterval(300), firstAttemptAt: Date())
let dispatchData = try HeraldJSON.encode(dispatch)
let pack = try HeraldJSON.encode(Array(repeating: dispatch, count: 20))
print("delivery \(deliveryData.count) B, dispatch \(dispatchData.count) B")

let decoder = HeraldJSON.decoder()
let encoder = HeraldJSON.encoder()
let plainEncoder = JSONEncoder()
plainEncoder.outputFormatting = [.withoutEscapingSlashes]
let now = Date()
let stamp = HeraldJSON.formatTimestamp(now)

try measure("decode Delivery (new decoder)") { _ = try HeraldJSON.decode(Delivery.self, from: deliveryData) }
try measure("decode Delivery (shared decoder)") { _ = try decoder.decode(Delivery.self, from: deliveryData) }
try measure("encode Delivery (new encoder)") { _ = try HeraldJSON.encode(delivery) }
try measure("encode Delivery (shared encoder)") { _ = try encoder.encode(delivery) }
try measure("decode DispatchRequest") { _ = try decoder.decode(DispatchRequest.self, from: dispatchData) }
try measure("encode DispatchRequest") { _ = try encoder.encode(dispatch) }
try measure("encode DispatchRequest unsorted, date double") { _ = try plainEncoder.encode(dispatch) }
try measure("decode pack of 20 DispatchRequest", 2_000) { _ = try decoder.decode([DispatchRequest].self, from: pack) }
measure("formatTimestamp") { _ = HeraldJSON.formatTimestamp(now) }
measure("parseTimestamp") { _ = HeraldJSON.parseTimestamp(stamp) }
measure("JSONSerialization parse Delivery") { _ = try? JSONSerialization.jsonObject(with: deliveryData) }
try measure("read Delivery (JSONReader)") { _ = try Delivery.fromWireJSON(deliveryData) }
try measure("write Delivery (JSONWriter)") { _ = try delivery.wireJSON() }
try measure("read DispatchRequest (JSONReader)") { _ = try DispatchRequest.fromWireJSON(dispatchData) }
try measure("write DispatchRequest (JSONWriter)") { _ = try dispatch.wireJSON() }
try measure("read pack of 20 DispatchRequest (JSONReader)", 2_000) { _ = try DispatchRequest.arrayFromWireJSON(pack) }
// The dynamic value (a request body read field by field) against Foundation's.
let deliveryValue = try JSONValue(json: deliveryData)
let deliveryObject = try JSONSerialization.jsonObject(with: deliveryData)
try measure("read Delivery as a JSONValue") { _ = try JSONValue(json: deliveryData) }
measure("write Delivery from a JSONValue") { _ = deliveryValue.json }
try measure("JSONSerialization write Delivery") { _ = try JSONSerialization.data(withJSONObject: deliveryObject, options: [.sortedKeys, .withoutEscapingSlashes]) }
