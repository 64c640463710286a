/// Consumes one queue on its own connection, as an `AsyncSequence` of messages to settle
/// with `ack()` or `nack(requeue:)`. At most `prefetch` messages are unsettled at once. The
/// sequence survives lost connections and broker restarts: the consumer reconnects,
/// re-declares its topology and resumes; unsettled messages of the lost connection are
/// redelivered by the broker. Iterate it once.
public final class Consumer: AsyncSequence, Sendable {
    public typealias Element = ReceivedMessage

    private let worker: ChannelWorker
    private let buffer = DeliveryBuffer()

    public let queue: String
    public let prefetch: UInt16

    /// `arguments` go with `basic.consume`: a stream's `x-stream-offset` (`first`, `next`, or
    /// an interval back from now such as `10m`), sent again on every reconnect.
    public init(
        configuration: ConnectionConfiguration, queue: String, prefetch: UInt16 = 100, exclusive: Bool = false,
        arguments: [String: HeaderValue] = [:]
    ) {
        self.queue = queue
        self.prefetch = prefetch
        worker = ChannelWorker(
            configuration: configuration, confirms: false,
            consume: ConsumeSpec(queue: queue, prefetch: prefetch, noAck: false, exclusive: exclusive, arguments: arguments),
            sink: buffer)
        worker.start()
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer)
    }

    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let buffer: DeliveryBuffer

        public mutating func next() async -> ReceivedMessage? {
            await buffer.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> ReceivedMessage? {
            await buffer.next(isolation: actor)
        }

        /// The next delivery and up to `maxCount - 1` more of those that have already
        /// arrived: a batch never waits for a message that is not there yet. Empty once the
        /// sequence ended.
        public mutating func nextBatch(maxCount: Int, isolation actor: isolated (any Actor)? = #isolation) async -> [ReceivedMessage] {
            guard let first = await buffer.next(isolation: actor) else { return [] }
            return [first] + buffer.drain(upTo: maxCount - 1)
        }
    }

    public var name: String { worker.configuration.name }
    /// Deliveries received from the broker and not yet taken from the sequence.
    public var buffered: Int { buffer.count }
    public var isConnected: Bool { worker.isConnected }
    public var lastError: MessagingError? { worker.lastError }

    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout) { self.isConnected }
    }

    /// Stops new deliveries. The sequence ends after the messages already received; they
    /// can still be settled.
    public func stopConsuming() {
        worker.stopConsuming()
    }

    /// Stops consuming, waits (up to `timeout`) until every received message is settled,
    /// and closes the connection. Unsettled messages go back to the queue.
    public func close(timeout: Duration = .seconds(30)) async {
        await worker.stop(timeout: timeout)
    }
}
