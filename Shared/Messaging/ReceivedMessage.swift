import Foundation
import Synchronization

/// A message delivered to a consumer. Settle it exactly once with `ack()` or
/// `nack(requeue:)`; later calls are ignored. Settlements of a delivery from a connection
/// that has since been lost are dropped: the broker redelivers that message anyway.
public struct ReceivedMessage: Sendable {
    public let body: Data
    public let properties: MessageProperties
    public let exchange: String
    public let routingKey: String
    /// The broker delivered this message before, to this or another consumer.
    public let redelivered: Bool
    public let deliveryTag: UInt64
    let settlement: SettlementHandle?

    init(
        body: Data, properties: MessageProperties, exchange: String, routingKey: String,
        redelivered: Bool, deliveryTag: UInt64, settlement: SettlementHandle?
    ) {
        self.body = body
        self.properties = properties
        self.exchange = exchange
        self.routingKey = routingKey
        self.redelivered = redelivered
        self.deliveryTag = deliveryTag
        self.settlement = settlement
    }

    /// Acknowledges the message: the broker forgets it.
    public func ack() {
        settlement?.settle(.ack)
    }

    /// Rejects the message: back to the queue (`requeue: true`) or to the queue's
    /// dead-letter exchange (`requeue: false`).
    public func nack(requeue: Bool) {
        settlement?.settle(.nack(requeue: requeue))
    }

    /// How many times a quorum queue delivered this message before (`x-delivery-count`).
    public var deliveryCount: Int {
        Int(properties.headers["x-delivery-count"]?.intValue ?? 0)
    }

    /// The broker's dead-letter history (`x-death`), most recent first.
    public var deaths: [[String: HeaderValue]] {
        properties.headers["x-death"]?.arrayValue?.compactMap(\.tableValue) ?? []
    }
}

/// How a delivery was settled.
enum SettlementKind: Sendable, Hashable {
    case ack
    case nack(requeue: Bool)
}

/// The link from a delivery back to the worker that received it.
final class SettlementHandle: Sendable {
    private let worker: ChannelWorker
    private let generation: UInt64
    private let tag: UInt64
    private let settled = Atomic<Bool>(false)

    init(worker: ChannelWorker, generation: UInt64, tag: UInt64) {
        self.worker = worker
        self.generation = generation
        self.tag = tag
    }

    func settle(_ kind: SettlementKind) {
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        worker.settle(generation: generation, tag: tag, kind: kind)
    }
}
