import Foundation
@testable import Messaging
import HeraldTestSupport
import Testing

/// Every publish either confirms or fails, whatever happens to the connection or the route.
@Suite("Every publish completes", .enabled(if: TestBroker.shouldRun))
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
