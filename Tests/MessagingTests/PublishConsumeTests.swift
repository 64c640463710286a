import Foundation
@testable import Messaging
import HeraldTestSupport
import Testing

@Suite("Publishing and consuming through a real broker", .needs(.broker))
struct PublishConsumeTests {
    @Test("a confirmed publish is consumed, and acked messages leave the queue")
    func publishConfirmConsumeAck() async throws {
        let work = TestBroker.workTopology("roundtrip")
        let publisher = Publisher(configuration: TestBroker.configuration("pub", topology: work.topology))
        let consuming = Collector(TestBroker.configuration("sub", topology: work.topology), queue: work.queue.name)
        let inbox = consuming.inbox
        for i in 0..<50 {
            try await publisher.publish(work.message("m\(i)"))
        }
        try await inbox.waitUntil("50 messages") { $0.count == 50 }
        let ids = await inbox.ids
        #expect(ids == (0..<50).map { "m\($0)" })
        let first = await inbox.messages[0]
        #expect(first.body == Data("m0".utf8))
        #expect(first.properties.persistent)
        #expect(first.properties.contentType == "text/plain")
        #expect(first.routingKey == "work")
        #expect(first.redelivered == false)
        try await eventually("the queue to be empty") { try await TestBroker.admin.readyCount(work.queue.name) == 0 }
        await consuming.stop()
        await publisher.close()
        // Nothing came back after acking: a new consumer finds the queue empty.
        #expect(try await TestBroker.admin.readyCount(work.queue.name) == 0)
        await work.cleanUp()
    }

    @Test("a message AMQP cannot carry is refused before sending, and the publisher goes on")
    func overlongFieldsAreRefused() async throws {
        let work = TestBroker.workTopology("overlong")
        let publisher = Publisher(configuration: TestBroker.configuration("pub-overlong", topology: work.topology))
        let consuming = Collector(TestBroker.configuration("sub-overlong", topology: work.topology), queue: work.queue.name)
        var tooLong = work.message("x")
        tooLong.routingKey = String(repeating: "k", count: 256)
        await #expect { try await publisher.publish(tooLong) } throws: {
            ($0 as? MessagingError)?.reason == .invalidMessage && "\($0)".contains("routing key is 256 bytes")
        }
        var longId = work.message("y")
        longId.properties.messageId = String(repeating: "i", count: 300)
        await #expect { try await publisher.publish(contentsOf: [work.message("before"), longId]) } throws: {
            ($0 as? MessagingError)?.reason == .invalidMessage
        }
        try await publisher.publish(work.message("after"))
        try await consuming.inbox.waitUntil("the message after") { $0.count == 1 }
        #expect(await consuming.inbox.ids == ["after"], "nothing of a refused batch was sent")
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }
}
