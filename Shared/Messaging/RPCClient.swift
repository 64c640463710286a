import Foundation
import ServiceLifecycle
import Synchronization

/// Calls commands served by an `RPCServer`: publishes the request to the server's queue
/// with `reply_to` = RabbitMQ's direct reply-to and a fresh `correlation_id`, and waits for
/// the matching reply, the timeout or the caller's cancellation, whichever comes first. A
/// request that no queue takes fails at once with `.unroutable`; a request nobody answers in
/// time fails with `.timeout` (and expires in the queue, so a late server does not work for
/// nobody). As a `Service`, it closes on graceful shutdown.
public final class RPCClient: Service, Sendable {
    /// RabbitMQ's pseudo-queue for direct reply-to.
    static let replyQueue = "amq.rabbitmq.reply-to"

    private let worker: ChannelWorker
    private let replies = PendingReplies()

    public init(configuration: ConnectionConfiguration) {
        worker = ChannelWorker(
            configuration: configuration, confirms: true,
            consume: ConsumeSpec(queue: Self.replyQueue, prefetch: 0, noAck: true, exclusive: false),
            window: 1000, sink: replies)
        worker.start()
    }

    public var isConnected: Bool { worker.isConnected }

    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout) { self.isConnected }
    }

    /// Sends `body` as a command of `type` to `queue` and returns the reply message. Throws
    /// `MessagingError` (`.timeout`, `.unroutable`, `.shutdown`, …) or `CancellationError`.
    public func call(queue: String, type: String, body: Data, timeout: Duration = .seconds(5)) async throws -> ReceivedMessage {
        let id = UUID().uuidString
        let message = OutgoingMessage(
            exchange: "", routingKey: queue, body: body,
            properties: MessageProperties(
                contentType: "application/json", type: type, messageId: id, correlationId: id,
                replyTo: Self.replyQueue, expiration: String(max(1, timeout.milliseconds)),
                timestamp: Date(), persistent: false),
            mandatory: true)
        let replies = replies
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                replies.register(id, continuation)
                if Task.isCancelled {
                    replies.resolve(id, with: .failure(CancellationError()))
                    return
                }
                replies.attach(Task {
                    try await Task.sleep(for: timeout)
                    replies.resolve(id, with: .failure(MessagingError(.timeout, "no reply to \(type) from \(queue) within \(timeout)")))
                }, to: id)
                worker.enqueue(CollectionOfOne(PendingPublish(message: message) { result in
                    if case .failure(let error) = result { replies.resolve(id, with: .failure(error)) }
                }))
            }
        } onCancel: {
            replies.resolve(id, with: .failure(CancellationError()))
        }
    }

    /// Closes the connection; calls still waiting fail with `.shutdown`.
    public func close(timeout: Duration = .seconds(5)) async {
        await worker.stop(timeout: timeout)
        replies.failAll(MessagingError(.shutdown, "the RPC client was closed"))
    }

    /// Serves until graceful shutdown, then closes.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}

/// The calls waiting for their reply, by correlation id; replies arrive on the worker's
/// thread. Each call is resumed once: by its reply, its timeout, its cancellation or a
/// failed publish, whichever comes first.
private final class PendingReplies: DeliverySink, Sendable {
    private struct Call {
        var continuation: CheckedContinuation<ReceivedMessage, any Error>
        var timer: Task<Void, any Error>?
    }

    private let calls = Mutex<[String: Call]>([:])

    func register(_ id: String, _ continuation: CheckedContinuation<ReceivedMessage, any Error>) {
        calls.withLock { $0[id] = Call(continuation: continuation) }
    }

    /// Gives the call its timer, or cancels the timer if the call has already ended.
    func attach(_ timer: Task<Void, any Error>, to id: String) {
        let ended = calls.withLock { calls -> Bool in
            guard calls[id] != nil else { return true }
            calls[id]?.timer = timer
            return false
        }
        if ended { timer.cancel() }
    }

    func resolve(_ id: String, with result: Result<ReceivedMessage, any Error>) {
        guard let call = calls.withLock({ $0.removeValue(forKey: id) }) else { return }
        call.timer?.cancel()
        call.continuation.resume(with: result)
    }

    func failAll(_ error: MessagingError) {
        let waiting = calls.withLock { calls in
            defer { calls.removeAll() }
            return Array(calls.values)
        }
        for call in waiting {
            call.timer?.cancel()
            call.continuation.resume(throwing: error)
        }
    }

    func append(_ message: ReceivedMessage) {
        guard let id = message.properties.correlationId else { return }
        resolve(id, with: .success(message))
    }

    func flush() {}
    func finish() {}
}
