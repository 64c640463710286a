import Foundation
import Messaging
import HeraldTestSupport
import Testing

/// Restarts the broker application, so it must not run beside other integration tests:
/// the test command runs this suite on its own, after the main run (`.runsAlone`).
@Suite(
    "Surviving a broker restart",
    .serialized,
    .runsAlone, .needs(.broker)
)
struct BrokerRestartTests {
    @Test("publisher and consumer ride through stop_app/start_app and nothing published before, during or after is lost")
    func survivesStopAndStartApp() async throws {
        let work = TestBroker.workTopology("restart")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        let consuming = Collector(TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name, prefetch: 20)
        let consumer = consuming.consumer
        let inbox = consuming.inbox
        #expect(await consumer.waitUntilConnected(timeout: .seconds(10)))
        try await publisher.publish(contentsOf: (0..<200).map { work.message("before-\($0)") })

        try await TestBroker.rabbitmqctl("stop_app")
        // Published while the broker is down: these wait for the reconnect, then confirm.
        let during = Task { try await publisher.publish(contentsOf: (0..<200).map { work.message("during-\($0)") }) }
        try await eventually("both sides to notice the broker is gone") { !publisher.isConnected && !consumer.isConnected }
        try await TestBroker.rabbitmqctl("start_app")
        try await TestBroker.rabbitmqctl("await_startup")

        try await within(.seconds(60), "the publishes made while the broker was down to be confirmed") { try await during.value }
        try await publisher.publish(contentsOf: (0..<200).map { work.message("after-\($0)") })

        let expected = Set(["before", "during", "after"].flatMap { phase in (0..<200).map { "\(phase)-\($0)" } })
        try await inbox.waitUntil(timeout: .seconds(60), "all 600 messages") { Set($0.compactMap(\.properties.messageId)).isSuperset(of: expected) }
        #expect(consumer.isConnected && publisher.isConnected)
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }
}
