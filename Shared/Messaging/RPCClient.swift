import Foundation
import HeraldModel
import Synchronization

/// Calls commands served by an `RPCServer`: publishes the request to the server's queue
/// with `reply_to` = RabbitMQ's direct reply-to and a fresh `correlation_id`, and waits for
/// the matching reply or the timeout. A request that no queue takes fails at once with
/// `.unroutable`; a request nobody answers in time fails with `.timeout` (and expires in
/// the queue, so a late server does not work for nobody).
public final class RPCClient: Sendable {
    /// RabbitMQ's pseudo-queue for direct reply-to.
    static let replyQueue = "amq.rabbitmq.reply-to"

    private let worker: ChannelWorker
    private let pending = Mutex<[String: CheckedContinuation<ReceivedMessage, any Error>]>([:])

    public init(configuration: ConnectionConfiguration) {
        let replies = PendingReplies()
        worker = ChannelWorker(
            configuration: configuration, confirms: true,
            consume: ConsumeSpec(queue: Self.replyQueue, prefetch: 0, noAck: true, exclusive: false),
            window: 1000, sink: replies)
        replies.client.withLock { $0 = self }
        worker.start()
    }

    public var isConnected: Bool { worker.isConnected }

    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout) { self.isConnected }
    }

    /// Sends `body` as a command of `type` to `queue` and returns the reply message.
    public func call(queue: String, type: String, body: Data, timeout: Duration = .seconds(5)) async throws -> ReceivedMessage {
        let id = UUID().uuidString
        let message = OutgoingMessage(
            exchange: "", routingKey: queue, body: body,
            properties: MessageProperties(
                contentType: "application/json", type: type, messageId: id, correlationId: id,
                replyTo: Self.replyQueue, expiration: String(max(1, timeout.milliseconds)),
                timestamp: Date(), persistent: false),
            mandatory: true)
        return try await withThrowingTaskGroup(of: ReceivedMessage.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in
                    self.pending.withLock { $0[id] = continuation }
                    self.worker.enqueue(CollectionOfOne(PendingPublish(message: message) { result in
                        if case .failure(let error) = result { self.resolve(id, with: .failure(error)) }
                    }))
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                self.resolve(id, with: .failure(MessagingError(.timeout, "no reply to \(type) from \(queue) within \(timeout)")))
                throw CancellationError()
            }
            defer { group.cancelAll() }
            while true {
                do {
                    if let reply = try await group.next() { return reply }
                } catch is CancellationError {
                    continue
                }
            }
        }
    }

    /// Sends a typed command and decodes the typed reply; a `herald.error.v1` reply is
    /// thrown as `CommandError`.
    public func call<Request: Encodable & Sendable, Reply: Decodable>(
        _ request: Request, type: String, queue: String, expecting: Reply.Type,
        timeout: Duration = .seconds(5)
    ) async throws -> Reply {
        let reply = try await call(queue: queue, type: type, body: HeraldJSON.encode(request), timeout: timeout)
        if reply.properties.type == CommandError.contractName {
            throw try HeraldJSON.decode(CommandError.self, from: reply.body)
        }
        do {
            return try HeraldJSON.decode(Reply.self, from: reply.body)
        } catch {
            throw ContractError(.malformed, "reply to \(type): \(HeraldJSON.describe(error))")
        }
    }

    public func close(timeout: Duration = .seconds(5)) async {
        await worker.stop(timeout: timeout)
        let waiting = pending.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for continuation in waiting {
            continuation.resume(throwing: MessagingError(.shutdown, "the RPC client was closed"))
        }
    }

    fileprivate func resolve(_ id: String, with result: Result<ReceivedMessage, any Error>) {
        let continuation = pending.withLock { $0.removeValue(forKey: id) }
        continuation?.resume(with: result)
    }
}

/// Routes replies from the worker thread to the waiting call (set once, after init).
private final class PendingReplies: DeliverySink, Sendable {
    let client = Mutex<RPCClient?>(nil)

    func append(_ message: ReceivedMessage) {
        guard let id = message.properties.correlationId else { return }
        let target = client.withLock { $0 }
        target?.resolve(id, with: .success(message))
    }

    func flush() {}
    func finish() {}
}
