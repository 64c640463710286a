import Foundation
import HeraldDomain
import Messaging
import ServiceKit

/// The operator's view of Herald's `dead-letters` queue: list and show without taking
/// anything off it, replay to where each message came from, purge. Each command takes the
/// messages with `basic.get` and leaves unacknowledged (so back in the queue, in place) all
/// but those it replayed or purged.
public struct DeadLetterQueue: Sendable {
    public var url: AMQPURL
    public var queue: String

    public init(url: AMQPURL, queue: String = HeraldTopology.Queue.deadLetters.name) {
        self.url = url
        self.queue = queue
    }

    /// The first `limit` dead letters, oldest first; the queue is left as it was.
    public func list(limit: Int) async throws(ControlError) -> [DeadLetter] {
        try await withSession { session in
            try await Self.take(from: session, queue: queue, limit: limit)
        }
    }

    /// Publishes the selected dead letters again, each to the exchange and routing key it
    /// first came with (confirmed by the broker), then removes them from the queue. Returns
    /// those replayed. Looks at the first `limit` messages.
    public func replay(limit: Int, where select: @Sendable (DeadLetter) -> Bool) async throws(ControlError) -> [DeadLetter] {
        let publisher = try await ControlBroker.publisher(url: url, name: "heraldctl/replay")
        let replayed: Result<[DeadLetter], ControlError>
        do {
            replayed = .success(try await replay(limit: limit, select, with: publisher))
        } catch {
            replayed = .failure(error)
        }
        await publisher.close()
        return try replayed.get()
    }

    private func replay(limit: Int, _ select: @Sendable (DeadLetter) -> Bool, with publisher: Publisher) async throws(ControlError) -> [DeadLetter] {
        try await withSession { session in
            let chosen = try await Self.take(from: session, queue: queue, limit: limit).filter(select)
            for letter in chosen {
                do {
                    try await publisher.publish(letter.replayed())
                } catch {
                    let origin = letter.origin
                    throw ControlError(.failed, "could not replay \(letter.id) to exchange \"\(origin.exchange)\" with routing key \"\(origin.routingKey)\": \(error)")
                }
                try await session.ack(letter.message)
            }
            return chosen
        }
    }

    /// Removes the selected dead letters (of the first `limit`) and returns them.
    public func purge(limit: Int, where select: @Sendable (DeadLetter) -> Bool) async throws(ControlError) -> [DeadLetter] {
        try await withSession { session in
            let chosen = try await Self.take(from: session, queue: queue, limit: limit).filter(select)
            for letter in chosen { try await session.ack(letter.message) }
            return chosen
        }
    }

    /// Empties the queue at once and returns how many messages it held.
    public func purgeAll() async throws(ControlError) -> Int {
        try await withSession { session in
            let count = try await session.inspect(queue).ready
            try await BrokerAdmin(url: url).purge(queue)
            return count
        }
    }

    private static func take(from session: BrokerSession, queue: String, limit: Int) async throws -> [DeadLetter] {
        do {
            _ = try await session.inspect(queue)
        } catch {
            throw ControlError(.notFound, "the queue \(queue) does not exist on this broker (no Herald service declared it yet?): \(error)")
        }
        var letters: [DeadLetter] = []
        while letters.count < limit, let message = try await session.get(queue) {
            letters.append(DeadLetter(position: letters.count + 1, message: message))
        }
        return letters
    }

    private func withSession<T: Sendable>(_ body: (BrokerSession) async throws -> T) async throws(ControlError) -> T {
        let session = try await ControlBroker.session(url: url)
        do {
            let result = try await body(session)
            await session.close()
            return result
        } catch let error as ControlError {
            await session.close()
            throw error
        } catch {
            await session.close()
            throw ControlError(.failed, "\(queue): \(error)")
        }
    }
}
