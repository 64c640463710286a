import Foundation
import HeraldModel
import JSONKit

/// Encodes the deliveries of one event to many devices without encoding the event again
/// for each: the event's part is encoded once into a template, and per device only the
/// delivery id and the device's JSON are written into it. The bytes are exactly those of
/// `HeraldJSON.encode(Delivery(...))` (the tests compare them).
struct DeliveryFanOutEncoder {
    private let event: NotificationEvent
    private let head: Data
    private let middle: Data
    private let tail: Data

    private static let idMarker = String(repeating: "0", count: 32)
    private static let deviceMarker = DeviceTarget(id: "", platform: .fcm, token: "", os: .other)

    init(event: NotificationEvent, addressKey: AddressKey?) throws {
        self.event = event
        let prototype = Delivery(
            deliveryId: Self.idMarker, eventId: event.id, app: event.app, source: event.source, kind: event.kind,
            occurredAt: event.occurredAt, context: event.context, data: event.data, alert: event.alert,
            options: event.options, device: Self.deviceMarker, addressKey: addressKey, acceptedAt: event.acceptedAt)
        let template = try prototype.wireJSON()
        let idField = Data(#""deliveryId":"\#(Self.idMarker)""#.utf8)
        var marker = Data()
        Self.appendDevice(Self.deviceMarker, to: &marker)
        let deviceField = Data(#""device":"#.utf8) + marker
        guard let idRange = template.range(of: idField), let deviceRange = template.range(of: deviceField, in: idRange.upperBound..<template.endIndex) else {
            throw EncodingError.invalidValue(prototype, .init(codingPath: [], debugDescription: "unexpected delivery layout"))
        }
        head = template[..<idRange.lowerBound] + Data(#""deliveryId":""#.utf8)
        middle = Data("\"".utf8) + template[idRange.upperBound..<deviceRange.lowerBound] + Data(#""device":"#.utf8)
        tail = template[deviceRange.upperBound...]
    }

    /// The delivery id and the encoded delivery for `device`.
    func encode(_ device: DeviceTarget) throws -> (deliveryId: String, body: Data) {
        let deliveryId = Delivery.makeId(app: event.app, eventId: event.id, deviceId: device.id)
        var body = Data(capacity: head.count + middle.count + tail.count + 256)
        body.append(head)
        body.append(contentsOf: deliveryId.utf8)
        body.append(middle)
        Self.appendDevice(device, to: &body)
        body.append(tail)
        return (deliveryId, body)
    }

    /// `device` as the JSON encoder writes it (sorted keys, optionals left out).
    static func appendDevice(_ device: DeviceTarget, to body: inout Data) {
        var json = JSONWriter(capacity: 256)
        device.write(to: &json)
        body.append(contentsOf: json.bytes)
    }
}
