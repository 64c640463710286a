import Foundation
import HeraldModel

/// The delivered deliveries of an event, kept in its log row instead of an outcome row each:
/// a delivery that went as expected costs 21 bytes, its 16-byte id, when its
/// outcome came (milliseconds after the event was accepted, 32 bits signed) and how many
/// outcomes arrived (one byte, at most 255). Only ids of 32 hex digits (every id Herald
/// makes, `Delivery.makeId`) fit; an outcome row stays for any other.
struct DeliveredList: Sendable, Hashable {
    static let entrySize = 21
    private(set) var bytes: [UInt8]

    init(_ data: Data? = nil) {
        let bytes = data.map { [UInt8]($0) } ?? []
        self.bytes = Array(bytes.prefix(bytes.count - bytes.count % Self.entrySize))
    }

    var count: Int { bytes.count / Self.entrySize }
    var data: Data { Data(bytes) }

    /// Whether the delivery is in the list.
    func contains(_ deliveryId: String) -> Bool { start(of: deliveryId) != nil }

    /// Whether a delivered outcome of this delivery, at this time, can be listed.
    static func fits(_ deliveryId: String, at: Date, acceptedAt: Date) -> Bool {
        id(deliveryId) != nil && offset(at, acceptedAt: acceptedAt) != nil
    }

    /// Counts another outcome of a listed delivery: one more update, and the later time.
    /// False when the delivery is not in the list.
    mutating func countCopy(of deliveryId: String, at: Date, acceptedAt: Date) -> Bool {
        guard let start = start(of: deliveryId) else { return false }
        bytes[start + 20] = bytes[start + 20] == .max ? .max : bytes[start + 20] + 1
        if let offset = Self.offset(at, acceptedAt: acceptedAt), Int32(bitPattern: offset) > Int32(bitPattern: Self.offset(at: start, in: bytes)) {
            bytes.replaceSubrange(start + 16..<start + 20, with: Self.bigEndian(offset))
        }
        return true
    }

    private func start(of deliveryId: String) -> Int? {
        guard let id = Self.id(deliveryId) else { return nil }
        var offset = 0
        while offset < bytes.count {
            if bytes[offset..<offset + 16].elementsEqual(id) { return offset }
            offset += Self.entrySize
        }
        return nil
    }

    /// Adds a delivered delivery; false (and nothing added) when its id or time does not fit.
    mutating func append(_ deliveryId: String, at: Date, updates: Int, acceptedAt: Date) -> Bool {
        guard let id = Self.id(deliveryId), let offset = Self.offset(at, acceptedAt: acceptedAt) else { return false }
        bytes += id
        bytes += Self.bigEndian(offset)
        bytes.append(UInt8(clamping: updates))
        return true
    }

    /// `at` as milliseconds after `acceptedAt`, if that fits 32 bits signed.
    private static func offset(_ at: Date, acceptedAt: Date) -> UInt32? {
        let millis = ((at.timeIntervalSince1970 - acceptedAt.timeIntervalSince1970) * 1000).rounded()
        guard millis >= Double(Int32.min), millis <= Double(Int32.max) else { return nil }
        return UInt32(bitPattern: Int32(millis))
    }

    private static func offset(at start: Int, in bytes: [UInt8]) -> UInt32 {
        bytes[start + 16..<start + 20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// The deliveries as `GET /events/{id}` shows them.
    func statuses(acceptedAt: Date) -> [DeliveryStatus] {
        stride(from: 0, to: bytes.count, by: Self.entrySize).map { start in
            let millis = Double(Int32(bitPattern: Self.offset(at: start, in: bytes)))
            return DeliveryStatus(
                deliveryId: Hex.encode(bytes[start..<start + 16]), status: .delivered,
                at: Date(timeIntervalSince1970: ((acceptedAt.timeIntervalSince1970 * 1000).rounded() + millis) / 1000),
                updates: Int(bytes[start + 20]))
        }
    }

    /// The 16 bytes of an id of 32 lowercase hex digits (so it reads back the same).
    private static func id(_ deliveryId: String) -> [UInt8]? {
        guard deliveryId.utf8.count == 32, let bytes = Hex.decode(deliveryId), Hex.encode(bytes) == deliveryId else { return nil }
        return bytes
    }
}
