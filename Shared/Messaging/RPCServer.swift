import Foundation
import Logging

/// A reply to a command: its contract type and JSON body.
public struct RPCReply: Sendable {
    public var type: String
    public var body: Data

    public init(type: String, body: Data) {
        self.type = type
        self.body = body
    }
}

/// Serves commands from a queue: each request is handled concurrently (up to `prefetch`),
/// answered on its `reply_to` with its `correlation_id`, and acknowledged after the reply
/// was published. A handler that throws is answered with `errorReply(error)`; errors are
/// logged.
public final class RPCServer: Sendable {
    public typealias Handler = @Sendable (ReceivedMessage) async throws -> RPCReply
    public typealias ErrorReply = @Sendable (any Error) -> RPCReply

    private let consumer: Consumer
    private let publisher: Publisher
    private let handler: Handler
    private let errorReply: ErrorReply
    private let logger: Logger

    public init(
        configuration: ConnectionConfiguration, queue: String, prefetch: UInt16 = 32,
        publisher: Publisher, errorReply: @escaping ErrorReply, handler: @escaping Handler
    ) {
        consumer = Consumer(configuration: configuration, queue: queue, prefetch: prefetch)
        self.publisher = publisher
        self.errorReply = errorReply
        self.handler = handler
        logger = configuration.logger
    }

    public var isConnected: Bool { consumer.isConnected }

    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await consumer.waitUntilConnected(timeout: timeout)
    }

    /// Serves until `stop()`; returns once every request received was answered.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await request in consumer {
                group.addTask { await self.serve(request) }
            }
        }
        await consumer.close()
    }

    /// Stops taking requests; `run()` returns after answering those already received.
    public func stop() {
        consumer.stopConsuming()
    }

    private func serve(_ request: ReceivedMessage) async {
        let reply: RPCReply
        do {
            reply = try await handler(request)
        } catch {
            logger.debug("command failed", metadata: ["type": "\(request.properties.type ?? "?")", "error": "\(error)"])
            reply = errorReply(error)
        }
        guard let replyTo = request.properties.replyTo else {
            logger.warning("command without reply_to dropped", metadata: ["type": "\(request.properties.type ?? "?")"])
            request.ack()
            return
        }
        do {
            try await publisher.publish(OutgoingMessage(
                exchange: "", routingKey: replyTo, body: reply.body,
                properties: MessageProperties(
                    contentType: "application/json", type: reply.type,
                    messageId: UUID().uuidString, correlationId: request.properties.correlationId,
                    timestamp: Date(), persistent: false)))
        } catch {
            logger.warning("could not deliver a command reply (caller gone?)", metadata: ["error": "\(error)"])
        }
        request.ack()
    }
}
