import Foundation
import HeraldTestSupport
@testable import Messaging
import Synchronization
import Testing

@Suite("A packing publisher through a real broker", .needs(.broker))
struct PackingPublisherTests {
    /// A packable message: persistent, typed, a JSON body.
    static func message(_ work: WorkTopology, _ index: Int, routingKey: String = "work") -> OutgoingMessage {
        OutgoingMessage(
            exchange: work.exchange.name, routingKey: routingKey, body: Data("\"m\(index)\"".utf8),
            properties: MessageProperties(contentType: "application/json", type: "test.v1", messageId: "m\(index)"), mandatory: true)
    }

    /// Publishes every message at once and waits for each caller's answer.
    static func publishAll(_ messages: [OutgoingMessage], with packing: PackingPublisher) async -> [Result<Void, MessagingError>] {
        await withTaskGroup(of: (Int, Result<Void, MessagingError>).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        packing.publish(message) { continuation.resume(returning: (index, $0)) }
                    }
                }
            }
            var results: [(Int, Result<Void, MessagingError>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// What arrived on the queue: broker messages, and the bodies of their elements.
    static func receive(_ queue: String, elements: Int, configuration: ConnectionConfiguration) async throws -> (messages: [ReceivedMessage], bodies: [String]) {
        let consumer = Consumer(configuration: configuration, queue: queue, prefetch: 500)
        let seen = Mutex<(messages: [ReceivedMessage], bodies: [String])>(([], []))
        let task = Task {
            for await message in consumer {
                let bodies = try message.unpacked().map { String(decoding: $0.body, as: UTF8.self) }
                seen.withLock { $0.messages.append(message); $0.bodies += bodies }
                message.ack()
            }
        }
        try await eventually("\(elements) elements") { seen.withLock { $0.bodies.count >= elements } }
        await consumer.close()
        task.cancel()
        return seen.withLock { $0 }
    }

    @Test("messages published while a pack awaits its confirm leave together, and every caller is confirmed")
    func concurrentMessagesTravelInPacks() async throws {
        let work = TestBroker.workTopology("packing")
        let publisher = Publisher(configuration: TestBroker.configuration("packing", topology: work.topology))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        let packing = PackingPublisher(publisher, packsInFlight: 1)
        let results = await Self.publishAll((0..<300).map { Self.message(work, $0) }, with: packing)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let received = try await Self.receive(work.queue.name, elements: 300, configuration: TestBroker.configuration("packing-sub"))
        #expect(Set(received.bodies) == Set((0..<300).map { "\"m\($0)\"" }))
        #expect(received.bodies.count == 300, "each message arrives once")
        #expect(received.messages.count < 300, "some messages travelled together")
        #expect(received.messages.allSatisfy { MessagePack.count(of: $0.properties) <= MessagePack.maxCount })
        #expect(packing.waitingCount == 0)
        await publisher.close()
        await work.cleanUp()
    }

    @Test("an idle packing publisher sends a lone message as it is, not as a pack")
    func aLoneMessageIsNotPacked() async throws {
        let work = TestBroker.workTopology("packing-lone")
        let publisher = Publisher(configuration: TestBroker.configuration("packing-lone", topology: work.topology))
        let packing = PackingPublisher(publisher)
        let results = await Self.publishAll([Self.message(work, 7)], with: packing)
        #expect((try? results[0].get()) != nil)
        let received = try await Self.receive(work.queue.name, elements: 1, configuration: TestBroker.configuration("packing-lone-sub"))
        #expect(received.messages.count == 1)
        #expect(!MessagePack.isPack(received.messages[0].properties))
        #expect(received.messages[0].properties.messageId == "m7")
        await publisher.close()
        await work.cleanUp()
    }

    @Test("every caller of a pack no queue takes learns it was unroutable, and other keys are not held up")
    func unroutablePacksFailEachCaller() async throws {
        let work = TestBroker.workTopology("packing-unroutable")
        let publisher = Publisher(configuration: TestBroker.configuration("packing-unroutable", topology: work.topology))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        let packing = PackingPublisher(publisher, packsInFlight: 1)
        let messages = (0..<100).map { Self.message(work, $0, routingKey: $0 % 2 == 0 ? "work" : "nowhere") }
        let results = await Self.publishAll(messages, with: packing)
        for (index, result) in results.enumerated() {
            if index % 2 == 0 {
                #expect((try? result.get()) != nil, "message \(index) is routable")
            } else {
                guard case .failure(let error) = result else { Issue.record("message \(index) was confirmed"); continue }
                #expect(error.reason == .unroutable)
            }
        }
        let received = try await Self.receive(work.queue.name, elements: 50, configuration: TestBroker.configuration("packing-unroutable-sub"))
        #expect(Set(received.bodies) == Set(stride(from: 0, to: 100, by: 2).map { "\"m\($0)\"" }))
        await publisher.close()
        await work.cleanUp()
    }

    @Test("a message AMQP cannot carry is refused alone, before it joins a pack")
    func overlongMessagesAreRefusedAlone() async throws {
        let work = TestBroker.workTopology("packing-overlong")
        let publisher = Publisher(configuration: TestBroker.configuration("packing-overlong", topology: work.topology))
        let packing = PackingPublisher(publisher, packsInFlight: 1)
        var overlong = Self.message(work, 1)
        overlong.properties.messageId = String(repeating: "i", count: 300)
        let results = await Self.publishAll([Self.message(work, 0), overlong, Self.message(work, 2)], with: packing)
        guard case .failure(let error) = results[1] else { Issue.record("the overlong message was sent"); return }
        #expect(error.reason == .invalidMessage)
        #expect((try? results[0].get()) != nil)
        #expect((try? results[2].get()) != nil)
        await publisher.close()
        await work.cleanUp()
    }
}
