/// What a passive declare tells of a queue.
public struct QueueCounts: Sendable, Hashable {
    /// Messages ready for delivery (not those delivered and unacknowledged).
    public var ready: Int
    public var consumers: Int

    public init(ready: Int, consumers: Int) {
        self.ready = ready
        self.consumers = consumers
    }
}
