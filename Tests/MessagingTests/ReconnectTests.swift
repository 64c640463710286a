import Foundation
@testable import Messaging
import HeraldTestSupport
import Testing

@Suite("Surviving lost connections", .needs(.broker))
struct ReconnectTests {
    @Test("a node that does not answer is skipped for the next address of the cluster")
    func failoverToTheNextNode() async throws {
        let work = TestBroker.workTopology("failover")
        var configuration = TestBroker.configuration("failover-pub", topology: work.topology)
        let broker = configuration.url
        var dead = broker
        dead.port = try freePort()  // nothing listens there
        configuration.url = dead
        configuration.failover = [broker]
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(10)), "connected through the second address")
        try await publisher.publish(work.message("through the failover"))
        let consuming = Collector(TestBroker.configuration("failover-sub", topology: work.topology), queue: work.queue.name)
        try await consuming.inbox.waitUntil("the message") { $0.count == 1 }
        await publisher.close()
        await consuming.stop()
    }

    @Test("a consumer whose connection the broker closes reconnects and receives everything published before, during and after")
    func consumerSurvivesCloseConnection() async throws {
        let work = TestBroker.workTopology("close-sub")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        let consumerConfiguration = TestBroker.configuration("sub", topology: work.topology)
        let consuming = Collector(consumerConfiguration, queue: work.queue.name, prefetch: 10)
        let consumer = consuming.consumer
        let inbox = consuming.inbox
        #expect(await consumer.waitUntilConnected(timeout: .seconds(10)))
        try await publisher.publish(contentsOf: (0..<100).map { work.message("before-\($0)") })
        try await inbox.waitUntil("some messages before the close") { $0.count >= 10 }

        try await TestBroker.closeConnection(named: consumerConfiguration.name)
        try await publisher.publish(contentsOf: (0..<100).map { work.message("during-\($0)") })
        try await eventually("the consumer to reconnect") { consumer.isConnected }
        try await publisher.publish(contentsOf: (0..<100).map { work.message("after-\($0)") })

        let expected = Set(["before", "during", "after"].flatMap { phase in (0..<100).map { "\(phase)-\($0)" } })
        try await inbox.waitUntil("all 300 messages") { Set($0.compactMap(\.properties.messageId)).isSuperset(of: expected) }
        try await eventually("the queue to drain") { try await TestBroker.admin.readyCount(work.queue.name) == 0 }
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }

    @Test("a publisher whose connection the broker closes mid-stream still gets every message confirmed and delivered")
    func publisherSurvivesCloseConnection() async throws {
        let work = TestBroker.workTopology("close-pub")
        let publisherConfiguration = TestBroker.configuration("pub", topology: work.topology)
        let publisher = Publisher(configuration: publisherConfiguration, window: 50)
        let consuming = Collector(TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name)
        let inbox = consuming.inbox
        #expect(await publisher.waitUntilConnected(timeout: .seconds(10)))
        let publishing = Task {
            try await publisher.publish(contentsOf: (0..<3000).map { work.message("m-\($0)") })
        }
        try await inbox.waitUntil("the stream to start") { $0.count >= 100 }
        try await TestBroker.closeConnection(named: publisherConfiguration.name)
        try await within(.seconds(60), "3,000 publishes confirmed across the closed connection") { try await publishing.value }
        let expected = Set((0..<3000).map { "m-\($0)" })
        try await inbox.waitUntil("all 3000 messages") { Set($0.compactMap(\.properties.messageId)) == expected }
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }

    @Test("a message whose confirm was lost with the connection is published again after the reconnect")
    func lostConfirmIsRepublished() async throws {
        let work = TestBroker.workTopology("republish")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(10)))
        publisher.worker.dropAfterNextPublish.store(true, ordering: .relaxed)
        try await publisher.publish(work.message("once"))
        #expect(publisher.republishedCount == 1)
        try await publisher.publish(work.message("next"))

        let consuming = Collector(TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name)
        let inbox = consuming.inbox
        try await inbox.waitUntil("the message and the one after it") { $0.contains { $0.properties.messageId == "next" } }
        let ids = await inbox.ids
        #expect(ids.contains("once"))
        #expect(ids.allSatisfy { $0 == "once" || $0 == "next" })
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }
}
