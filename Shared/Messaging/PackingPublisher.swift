import DequeModule
import Synchronization

/// Publishes one message at a time for callers that each wait for their own confirm (the
/// gateway, one request per event), packing what arrives together: per exchange, routing
/// key and type, at most `packsInFlight` messages await their confirm at once, and the
/// messages that arrive meanwhile travel as the next pack (`MessagePack`). An idle
/// publisher sends a message at once, alone; a busy one sends the broker one message per
/// confirm round trip instead of one per caller. Every caller learns its own message's fate,
/// which is its pack's: confirmed, refused, or returned unroutable.
public final class PackingPublisher: Sendable {
    public typealias Completion = @Sendable (Result<Void, MessagingError>) -> Void

    /// The publisher underneath, for its connection state.
    public let publisher: Publisher
    /// How many packs of one key await their confirm at once.
    public let packsInFlight: Int

    private struct Lane {
        var waiting: Deque<(message: OutgoingMessage, completion: Completion)> = []
        var inFlight = 0
    }

    private let lanes = Mutex<[MessagePack.Key: Lane]>([:])

    public init(_ publisher: Publisher, packsInFlight: Int = 2) {
        self.publisher = publisher
        self.packsInFlight = max(1, packsInFlight)
    }

    /// Publishes `message`, alone or in a pack, and calls `completion` (on the connection's
    /// thread) with the broker's answer. A message that cannot be packed (headers, expiry,
    /// reply-to, not persistent) is published alone at once.
    public func publish(_ message: OutgoingMessage, completion: @escaping Completion) {
        if let problem = message.problem {
            completion(.failure(MessagingError(.invalidMessage, problem)))
            return
        }
        guard let key = MessagePack.key(of: message) else {
            publisher.publish(message, completion: completion)
            return
        }
        let next = lanes.withLock { lanes in
            lanes[key, default: Lane()].waiting.append((message, completion))
            return Self.take(key, from: &lanes, limit: packsInFlight)
        }
        if let next { send(next, key: key) }
    }

    /// How many messages wait for a pack to leave (for tests and metrics).
    public var waitingCount: Int {
        lanes.withLock { $0.values.reduce(0) { $0 + $1.waiting.count } }
    }

    /// The next pack of `key`'s lane if it may leave now: as many waiting messages as fit.
    private static func take(_ key: MessagePack.Key, from lanes: inout [MessagePack.Key: Lane], limit: Int) -> [(message: OutgoingMessage, completion: Completion)]? {
        guard var lane = lanes[key], lane.inFlight < limit, !lane.waiting.isEmpty else { return nil }
        var taken: [(message: OutgoingMessage, completion: Completion)] = []
        var bytes = 2
        while let first = lane.waiting.first, MessagePack.fits(first.message.body.count, count: taken.count, bytes: bytes) {
            bytes += first.message.body.count + 1
            taken.append(lane.waiting.removeFirst())
        }
        lane.inFlight += 1
        lanes[key] = lane
        return taken
    }

    private func send(_ pack: [(message: OutgoingMessage, completion: Completion)], key: MessagePack.Key) {
        publisher.publish(MessagePack.packed(pack.map(\.message))) { [self] result in
            for element in pack { element.completion(result) }
            let next = lanes.withLock { lanes -> [(message: OutgoingMessage, completion: Completion)]? in
                lanes[key]?.inFlight -= 1
                if let lane = lanes[key], lane.inFlight == 0, lane.waiting.isEmpty {
                    lanes[key] = nil
                    return nil
                }
                return Self.take(key, from: &lanes, limit: packsInFlight)
            }
            if let next { send(next, key: key) }
        }
    }
}
