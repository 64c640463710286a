/// One Herald queue as `heraldctl queues` shows it.
public struct QueueStatus: Sendable, Hashable {
    public var name: String
    /// Whether the broker has it (a queue no service declared yet does not exist).
    public var exists: Bool
    public var ready: Int
    public var unacknowledged: Int?
    public var consumers: Int
    /// Messages a second published to it and delivered from it, from the management API.
    public var publishRate: Double?
    public var deliverRate: Double?

    /// Ready plus unacknowledged; nil where only the ready count is known.
    public var messages: Int? { unacknowledged.map { ready + $0 } }
}
