import Foundation
@testable import Messaging
import HeraldTestSupport
import Testing

/// Every publish either confirms or fails, whatever happens to the connection or the route.
@Suite("Every publish completes", .needs(.broker))
struct PublishDefectTests {
    @Test("a connection lost in the middle of a batch publishes the rest of the batch after the reconnect")
    func batchInterruptedMidway() async throws {
        let work = TestBroker.workTopology("batch-drop")
        let publisher = Publisher(configuration: TestBroker.configuration("batch-drop", topology: work.topology))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        publisher.worker.dropAfterNextPublish.store(true, ordering: .relaxed)
        let messages = (0..<20).map { work.message("m\($0)") }
        let finished = Completion<Result<Void, any Error>>()
        Task {
            do { try await publisher.publish(contentsOf: messages); await finished.set(.success(())) } catch { await finished.set(.failure(error)) }
        }
        let result = try await finished.value(within: .seconds(60), "the interrupted batch to complete")
        #expect((try? result.get()) != nil)

        let consumer = Consumer(configuration: TestBroker.configuration("batch-drop-consumer", topology: work.topology), queue: work.queue.name)
        var seen = Set<String>()
        for await message in consumer {
            seen.insert(message.properties.messageId ?? "")
            message.ack()
            if seen.count == 20 { break }
        }
        #expect(seen == Set((0..<20).map { "m\($0)" }))
        await consumer.close()
        await publisher.close()
        await work.cleanUp()
    }

    /// A confirm the broker never sends (a quorum queue whose leader stopped can lose track of
    /// it) must not stall the publisher: past the confirm deadline it reconnects and publishes
    /// the message again. Here the queue's process is suspended, so the broker takes the
    /// message but holds its confirm back.
    @Test("a confirm that does not come within the deadline makes the publisher reconnect and publish the message again")
    func confirmDeadlineRepublishes() async throws {
        let queue = QueueSpec("test.held.\(UUID().uuidString.prefix(8))", kind: .classic)
        try await TestBroker.admin.declare(AMQPTopology(queues: [queue]))
        var configuration = TestBroker.configuration("confirm-deadline")
        configuration.confirmTimeout = .seconds(1)
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        try await TestBroker.suspendQueue(queue.name)
        let finished = Completion<Result<Void, any Error>>()
        let message = OutgoingMessage(exchange: "", routingKey: queue.name, body: Data("held".utf8), properties: MessageProperties(messageId: "held"))
        Task {
            do { try await publisher.publish(message); await finished.set(.success(())) } catch { await finished.set(.failure(error)) }
        }
        do {
            try await eventually(timeout: .seconds(20), "the message published again after the confirm deadline") { publisher.republishedCount >= 1 }
        } catch {
            try await TestBroker.suspendQueue(queue.name, resume: true)
            await publisher.close(timeout: .seconds(5))
            try? await TestBroker.admin.delete(queue: queue.name)
            throw error
        }
        try await TestBroker.suspendQueue(queue.name, resume: true)
        let result = try await finished.value(within: .seconds(30), "the publish to be confirmed once the queue answers")
        #expect((try? result.get()) != nil)
        await publisher.close()
        try? await TestBroker.admin.delete(queue: queue.name)
    }

    /// RabbitMQ 3.10 keeps refusing, on a channel a quorum queue once told it was full, every
    /// publish to that queue, even once the queue has room again; a fresh channel is not
    /// refused. So a message refused to the last attempt moves the publisher to a new channel.
    @Test("after a message is refused to its last attempt, the publisher moves to a fresh channel the broker does not refuse")
    func refusedChannelIsRenewed() async throws {
        let queue = QueueSpec("test.full.\(UUID().uuidString.prefix(8))")
        let policy = "full-\(queue.name)"
        try await TestBroker.admin.declare(AMQPTopology(queues: [queue]))
        try await TestBroker.rabbitmqctl(
            "set_policy", "--apply-to", "queues", policy, "^\(queue.name.replacingOccurrences(of: ".", with: "\\."))$",
            #"{"max-length":0,"overflow":"reject-publish"}"#)
        try await eventually("the policy on the queue") {
            try await TestBroker.rabbitmqctl("list_queues", "name", "policy").split(separator: "\n").contains("\(queue.name)\t\(policy)")
        }
        let publisher = Publisher(configuration: TestBroker.configuration("refused"), nackAttempts: 2)
        func message(_ id: String) -> OutgoingMessage {
            OutgoingMessage(exchange: "", routingKey: queue.name, body: Data(id.utf8), properties: MessageProperties(messageId: id))
        }
        // A quorum queue takes messages until it holds more than its limit.
        var refused = false
        for index in 0..<5 where !refused {
            do { try await publisher.publish(message("filler-\(index)")) } catch let error as MessagingError where error.reason == .publishRejected { refused = true }
        }
        #expect(refused, "the queue over its limit refused nothing")
        try await TestBroker.rabbitmqctl("clear_policy", policy)
        try await TestBroker.admin.purge(queue.name)
        await #expect(throws: Never.self) { try await publisher.publish(message("after")) }
        await publisher.close()
        try? await TestBroker.admin.delete(queue: queue.name)
    }

    @Test("a mandatory message without a message id that no queue takes fails as unroutable")
    func unroutableWithoutMessageId() async throws {
        let exchange = ExchangeSpec("test.nobody.\(UUID().uuidString.prefix(8))", kind: .direct, durable: false)
        let publisher = Publisher(configuration: TestBroker.configuration("unroutable", topology: AMQPTopology(exchanges: [exchange])))
        let message = OutgoingMessage(exchange: exchange.name, routingKey: "none", body: Data("x".utf8), mandatory: true)
        let error = await #expect(throws: MessagingError.self) { try await publisher.publish(message) }
        #expect(error?.reason == .unroutable)
        await publisher.close()
    }

    @Test("each return is matched to its own mandatory publish among many in flight")
    func returnsMatchTheirPublishes() async throws {
        let work = TestBroker.workTopology("returns")
        let publisher = Publisher(configuration: TestBroker.configuration("returns", topology: work.topology))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        // No message ids: routable ones go to `work`, unroutable ones to a key nobody binds.
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<60 {
                let routable = index % 3 != 0
                let message = OutgoingMessage(
                    exchange: work.exchange.name, routingKey: routable ? "work" : "nowhere",
                    body: Data("\(index)".utf8), mandatory: true)
                group.addTask {
                    do { try await publisher.publish(message); return (index, true) } catch let error as MessagingError {
                        #expect(error.reason == .unroutable)
                        return (index, false)
                    }
                }
            }
            var results: [Int: Bool] = [:]
            for try await (index, confirmed) in group { results[index] = confirmed }
            return results
        }
        for index in 0..<60 { #expect(outcomes[index] == (index % 3 != 0), "message \(index)") }
        await publisher.close()
        await work.cleanUp()
    }
}
