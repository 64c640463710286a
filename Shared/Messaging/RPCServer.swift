import Foundation
import HeraldModel
import Logging

/// A reply to a command: its contract type and JSON body.
public struct RPCReply: Sendable {
    public var type: String
    public var body: Data

    public init(type: String, body: Data) {
        self.type = type
        self.body = body
    }

    /// A typed reply encoded with the contract conventions.
    public static func encoding<T: Encodable>(_ value: T, type: String) throws -> RPCReply {
        RPCReply(type: type, body: try HeraldJSON.encode(value))
    }

    /// The typed error reply.
    public static func error(_ error: CommandError) -> RPCReply {
        RPCReply(type: CommandError.contractName, body: (try? HeraldJSON.encode(error)) ?? Data())
    }
}

/// Serves commands from a queue: each request is handled concurrently (up to `prefetch`),
/// answered on its `reply_to` with its `correlation_id`, and acknowledged after the reply
/// was published. A handler that throws `CommandError` answers with it; any other error
/// answers `internal` (500) and is logged.
public final class RPCServer: Sendable {
    public typealias Handler = @Sendable (ReceivedMessage) async throws -> RPCReply

    private let consumer: Consumer
    private let publisher: Publisher
    private let handler: Handler
    private let logger: Logger

    public init(
        configuration: ConnectionConfiguration, queue: String, prefetch: UInt16 = 32,
        publisher: Publisher, handler: @escaping Handler
    ) {
        consumer = Consumer(configuration: configuration, queue: queue, prefetch: prefetch)
        self.publisher = publisher
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
        } catch let error as CommandError {
            reply = .error(error)
        } catch {
            logger.error("command failed", metadata: ["type": "\(request.properties.type ?? "?")", "error": "\(error)"])
            reply = .error(CommandError(code: "internal", detail: "the command failed inside the service", status: 500))
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
