import Foundation
import Messaging
import HeraldTestSupport
import Testing

@Suite("Dead-lettering", .needs(.broker))
struct DeadLetterTests {
    @Test("nack without requeue moves the message to the dead-letter queue with its reason")
    func nackLandsInDeadLetters() async throws {
        let work = TestBroker.workTopology("dead")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        let consumer = Consumer(configuration: TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name)
        let collecting = Collector(TestBroker.configuration("dead", topology: work.topology), queue: work.deadQueue.name)
        let dead = collecting.inbox
        let rejecting = Task { for await message in consumer { message.nack(requeue: false) } }
        try await publisher.publish(work.message("poison"))
        try await dead.waitUntil("the dead letter") { $0.count == 1 }
        let letter = await dead.messages[0]
        #expect(letter.body == Data("poison".utf8))
        #expect(letter.properties.messageId == "poison")
        let death = try #require(letter.deaths.first)
        #expect(death["reason"]?.stringValue == "rejected")
        #expect(death["queue"]?.stringValue == work.queue.name)
        #expect(try await TestBroker.admin.readyCount(work.queue.name) == 0)
        await consumer.close()
        await rejecting.value
        await collecting.stop()
        await publisher.close()
        await work.cleanUp()
    }

    @Test("a requeued message comes back, marked redelivered, with its delivery count")
    func requeueRedelivers() async throws {
        let work = TestBroker.workTopology("requeue")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        let consumer = Consumer(configuration: TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name)
        let inbox = Inbox()
        let consuming = Task {
            for await message in consumer {
                await inbox.add(message)
                if message.redelivered { message.ack() } else { message.nack(requeue: true) }
            }
        }
        try await publisher.publish(work.message("again"))
        try await inbox.waitUntil("the redelivery") { $0.count == 2 }
        let (first, second) = await (inbox.messages[0], inbox.messages[1])
        #expect(!first.redelivered)
        #expect(second.redelivered)
        #expect(second.deliveryCount == 1)
        await consumer.close()
        await consuming.value
        await publisher.close()
        await work.cleanUp()
    }
}
