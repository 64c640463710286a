import Foundation

/// One connection for an operator's tool: takes messages off a queue without acknowledging
/// them (`basic.get`), then acknowledges those it is done with. Whatever it did not
/// acknowledge goes back to its queue, in its place, when the session closes (or its
/// connection drops). Every call runs on the session's own thread.
public final class BrokerSession: Sendable {
    /// The connection, touched only on `queue`, one call at a time.
    private final class Box: @unchecked Sendable {
        let connection: RabbitConnection
        init(_ connection: RabbitConnection) { self.connection = connection }
    }

    private let box: Box
    private let queue: DispatchQueue

    /// Connects; throws `MessagingError` when the broker cannot be reached or refuses the login.
    public static func open(url: AMQPURL, name: String = "herald-session", connectTimeout: Duration = .seconds(5)) async throws -> BrokerSession {
        let queue = DispatchQueue(label: "amqp:session")
        let box = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Box, any Error>) in
            queue.async {
                continuation.resume(with: Result {
                    Box(try RabbitConnection(url: url, heartbeat: 0, name: name, connectTimeout: connectTimeout))
                })
            }
        }
        return BrokerSession(box: box, queue: queue)
    }

    private init(box: Box, queue: DispatchQueue) {
        self.box = box
        self.queue = queue
    }

    deinit {
        let box = box
        queue.async { box.connection.close() }
    }

    /// The next message of `queueName`, held unacknowledged by this session; nil when none is ready.
    public func get(_ queueName: String) async throws -> FetchedMessage? {
        try await run { try $0.get(queueName) }
    }

    /// The ready messages and consumers of `queueName`.
    public func inspect(_ queueName: String) async throws -> QueueCounts {
        try await run { try $0.inspect(queueName) }
    }

    /// Acknowledges a message this session took: the broker forgets it.
    public func ack(_ message: FetchedMessage) async throws {
        try await run { try $0.ack(message.deliveryTag) }
    }

    /// Closes the connection; the messages not acknowledged return to their queues.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [box] in
                box.connection.close()
                continuation.resume()
            }
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (RabbitConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [box] in continuation.resume(with: Result { try body(box.connection) }) }
        }
    }
}
