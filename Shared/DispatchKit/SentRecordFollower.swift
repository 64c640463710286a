import Foundation
import HeraldModel
import JSONKit
import Logging
import Messaging
import Metrics
import ServiceKit
import ServiceLifecycle

/// Keeps a replica's `SentRecord` up to date with its replica set: reads the platform's
/// `dispatch.sent.<platform>` stream, where every replica appends the delivery ids it
/// delivered, from the start of the record's window (so a replica that starts late, or
/// reconnects, learns what the others sent meanwhile).
public struct SentRecordFollower: Service {
    public let stream: QueueSpec
    public let record: SentRecord
    private let runtime: ServiceRuntime

    public init(stream: QueueSpec, record: SentRecord, runtime: ServiceRuntime) {
        self.stream = stream
        self.record = record
        self.runtime = runtime
    }

    public func run() async throws {
        let consumer = Consumer(
            configuration: runtime.connection("sent:\(stream.name)"), queue: stream.name, prefetch: 1000,
            arguments: ["x-stream-offset": .string("\(record.windowMinutes)m")])
        let followed = Counter(label: "herald_dispatch_sent_record_followed_total")
        await withGracefulShutdownHandler {
            for await message in consumer {
                let ids = Self.deliveryIds(in: message)
                let at = message.properties.timestamp ?? Date()
                for id in ids { record.insert(id, at: at) }
                followed.increment(by: ids.count)
                message.ack()
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
    }

    /// The delivery ids of one stream message: a JSON string, or a pack (array) of them.
    static func deliveryIds(in message: ReceivedMessage) -> [String] {
        guard let value = try? JSONValue(json: message.body) else { return [] }
        if let id = value.stringValue { return [id] }
        return value.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

extension SentRecord {
    /// The message that tells the replica set `deliveryId` was delivered: a JSON string
    /// appended to `stream` (packed with the others of the same send window).
    static func announcement(_ deliveryId: String, to stream: QueueSpec) -> OutgoingMessage {
        var json = JSONWriter(capacity: deliveryId.utf8.count + 2)
        json.string(deliveryId)
        return OutgoingMessage(
            exchange: "", routingKey: stream.name, body: json.data,
            properties: MessageProperties(contentType: "application/json", type: "herald.sent.v1", timestamp: Date(), persistent: true))
    }
}
