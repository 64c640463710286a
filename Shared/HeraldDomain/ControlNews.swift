import Foundation
import Messaging
import ServiceKit

/// News between the replicas of a service on `herald.control` (a preference changed, a
/// gateway is alive): published best effort, not persistent, and read by each replica from
/// a queue of its own (exclusive, gone with the replica), so every replica hears every piece.
public enum ControlNews {
    /// Publishes `value` as JSON with `routingKey`, dropped by the broker after `expiration`
    /// when given; the error when it could not be published (the caller says how much it matters).
    @discardableResult
    public static func publish(
        _ value: some Encodable, routingKey: String, type: String, expiration: Duration? = nil, runtime: ServiceRuntime
    ) async -> (any Error)? {
        guard let publisher = runtime.publisher else { return MessagingError(.connectionFailed, "no publisher") }
        do {
            let milliseconds = expiration.map { max(1, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
            try await publisher.publish(OutgoingMessage(
                exchange: HeraldTopology.Exchange.control.name, routingKey: routingKey, body: try JSONEncoder().encode(value),
                properties: MessageProperties(
                    contentType: "application/json", type: type, expiration: milliseconds.map(String.init), timestamp: Date(), persistent: false)))
            return nil
        } catch {
            return error
        }
    }

    /// A consumer of the news with `routingKey` on a new queue of this replica's own, named
    /// `prefix` and a random id; its connection is `runtime`'s named `connection`.
    public static func consumer(prefix: String, routingKey: String, connection: String, runtime: ServiceRuntime, prefetch: UInt16) -> Consumer {
        let queue = QueueSpec("\(prefix).\(UUID().uuidString.lowercased())", kind: .classic, durable: false, exclusive: true, autoDelete: true)
        var configuration = runtime.connection(connection)
        configuration.topology = configuration.topology.merged(with: AMQPTopology(
            queues: [queue], bindings: [BindingSpec(exchange: HeraldTopology.Exchange.control.name, queue: queue.name, routingKey: routingKey)]))
        return Consumer(configuration: configuration, queue: queue.name, prefetch: prefetch, exclusive: true)
    }
}
