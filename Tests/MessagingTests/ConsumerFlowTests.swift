import Foundation
import Messaging
import HeraldTestSupport
import Testing

@Suite("Consumer flow control and shutdown", .needs(.broker))
struct ConsumerFlowTests {
    @Test("a batch is the next message and those already arrived, never waiting for more")
    func aBatchIsWhatHasArrived() async throws {
        let work = TestBroker.workTopology("batch")
        let publisher = Publisher(configuration: TestBroker.configuration("pub-batch", topology: work.topology))
        let consumer = Consumer(configuration: TestBroker.configuration("sub-batch", topology: work.topology), queue: work.queue.name, prefetch: 50)
        #expect(await consumer.waitUntilConnected(timeout: .seconds(20)))
        var messages = consumer.makeAsyncIterator()
        try await publisher.publish(contentsOf: (0..<5).map { work.message("m\($0)") })
        try await eventually("all five received by the consumer") { consumer.buffered == 5 }
        let batch = await messages.nextBatch(maxCount: 3)
        #expect(batch.compactMap(\.properties.messageId) == ["m0", "m1", "m2"])
        let rest = await messages.nextBatch(maxCount: 10)
        #expect(rest.compactMap(\.properties.messageId) == ["m3", "m4"], "what has arrived, without waiting for a tenth")
        for message in batch + rest { message.ack() }
        await consumer.close()
        await publisher.close()
        await work.cleanUp()
    }

    @Test("no more than prefetch messages are unacknowledged at once")
    func prefetchIsHonoured() async throws {
        let work = TestBroker.workTopology("prefetch")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        try await publisher.publish(contentsOf: (0..<20).map { work.message("p\($0)") })
        let consumer = Consumer(configuration: TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name, prefetch: 5)
        let inbox = Inbox()
        let ackOnArrival = Gate()
        let consuming = Task {
            for await message in consumer {
                await inbox.add(message)
                if await ackOnArrival.isOpen { message.ack() }
            }
        }

        try await inbox.waitUntil("the first five") { $0.count == 5 }
        // A negative can only be observed over a window: the broker would push more at once
        // if the prefetch allowed it.
        try await Task.sleep(for: .milliseconds(500))
        #expect(await inbox.count == 5)
        #expect(try await TestBroker.admin.readyCount(work.queue.name) == 15)

        await inbox.messages[0].ack()
        try await inbox.waitUntil("a sixth message once one was acked") { $0.count == 6 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await inbox.count == 6)

        await ackOnArrival.open()
        for message in await inbox.messages { message.ack() }
        try await inbox.waitUntil("the rest") { $0.count == 20 }
        await consumer.close()
        await consuming.value
        await publisher.close()
        #expect(try await TestBroker.admin.readyCount(work.queue.name) == 0)
        await work.cleanUp()
    }

    @Test("closing a consumer stops deliveries, waits for in-flight work and its acks, and requeues nothing")
    func gracefulShutdownFinishesInFlightWork() async throws {
        let work = TestBroker.workTopology("shutdown")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        try await publisher.publish(contentsOf: (0..<8).map { work.message("s\($0)") })
        let consumer = Consumer(configuration: TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name, prefetch: 4)
        let release = Gate()
        let started = Inbox()
        let finished = Tally()
        let consuming = Task {
            await withDiscardingTaskGroup { group in
                for await message in consumer {
                    group.addTask {
                        await started.add(message)
                        await release.wait()
                        await finished.add()
                        message.ack()
                    }
                }
            }
        }
        try await started.waitUntil("four messages in flight") { $0.count == 4 }
        let closing = Task { await consumer.close(timeout: .seconds(30)) }
        // The stream ends, but close() waits for the four in flight.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await finished.value == 0)
        await release.open()
        await closing.value
        await consuming.value
        #expect(await finished.value == 4)
        #expect(await started.count == 4)
        // The four were acked (not requeued), the other four never left the queue.
        #expect(try await TestBroker.admin.readyCount(work.queue.name) == 4)
        await publisher.close()
        await work.cleanUp()
    }
}
