import Messaging

/// Consumes a queue into an `Inbox`, acknowledging each message (unless told not to).
public struct Collector: Sendable {
    public let consumer: Consumer
    public let inbox = Inbox()
    private let task: Task<Void, Never>

    public init(_ configuration: ConnectionConfiguration, queue: String, prefetch: UInt16 = 100, ack: Bool = true) {
        let consumer = Consumer(configuration: configuration, queue: queue, prefetch: prefetch)
        let inbox = inbox
        self.consumer = consumer
        task = Task {
            for await message in consumer {
                await inbox.add(message)
                if ack { message.ack() }
            }
        }
    }

    /// Closes the consumer and waits until collecting ended.
    public func stop() async {
        await consumer.close()
        await task.value
    }
}
