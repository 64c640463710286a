import Foundation
import HeraldTestSupport
import Messaging
import Testing

/// A memory alarm blocks every publisher on the broker, so the test command runs this suite
/// on its own, like the broker restarts (`.runsAlone`).
@Suite(
    "A broker under a resource alarm",
    .serialized,
    .runsAlone, .needs(.broker)
)
struct FlowControlTests {
    static func push(_ id: String) -> Data {
        Data(#"{"messageId":"\#(id)","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)
    }

    /// Time the broker blocks publishers does not count against a confirm's deadline: a
    /// publish held through an alarm three times as long as the deadline is confirmed on its
    /// connection once the alarm lifts, not published again.
    @Test func aPublishHeldByAnAlarmIsNotPublishedAgainPastTheConfirmDeadline() async throws {
        let queue = QueueSpec("test.alarm.\(UUID().uuidString.prefix(8))", kind: .classic)
        try await TestBroker.admin.declare(AMQPTopology(queues: [queue]))
        var configuration = TestBroker.configuration("alarm-deadline")
        configuration.confirmTimeout = .seconds(1)
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(20)))
        try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "absolute", "1")
        let finished = Completion<Result<Void, any Error>>()
        Task {
            do {
                try await publisher.publish(OutgoingMessage(exchange: "", routingKey: queue.name, body: Data("held".utf8), properties: MessageProperties(messageId: "held")))
                await finished.set(.success(()))
            } catch {
                await finished.set(.failure(error))
            }
        }
        do {
            try await eventually("the publisher to hear that the broker blocks it") { publisher.blockedReason != nil }
            // The alarm lasts three times the confirm deadline.
            try await Task.sleep(for: .seconds(3))
        } catch {
            try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "0.4")
            throw error
        }
        try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "0.4")
        let result = try await finished.value(within: .seconds(30), "the publish to be confirmed once the alarm lifts")
        #expect((try? result.get()) != nil)
        #expect(publisher.republishedCount == 0, "published again while the broker blocked it")
        await publisher.close()
        try? await TestBroker.admin.delete(queue: queue.name)
    }

    @Test func aBlockedBrokerMakesTheGatewayRefuseEventsWith503AndReportNotReady() async throws {
        let gateway = try await GatewayFixture()
        let publisher = try #require(gateway.runtime.publisher)
        try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "absolute", "1")
        do {
            // The broker blocks a connection when it next publishes; this event may wait for
            // its deadline, and is answered 503 either way.
            let first = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Self.push("blocked-1"))
            #expect(first.status == 503)
            try await eventually("the gateway to hear that the broker blocks it") { publisher.blockedReason != nil }
            let refused = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Self.push("blocked-2"))
            #expect(refused.status == 503 && (refused.json["detail"] as? String)?.contains("resource alarm") == true, "\(refused.json)")
            #expect(refused.headers["retry-after"] == "5")
            #expect(gateway.runtime.readiness.evaluate().contains { $0.name == "broker-accepts-publishes" && !$0.ready })
        } catch {
            try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "0.4")
            throw error
        }
        try await TestBroker.rabbitmqctl("set_vm_memory_high_watermark", "0.4")
        try await eventually("the alarm to lift") { publisher.blockedReason == nil }
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: Self.push("after")).status == 202)
        await gateway.stop()
    }
}

/// A work queue at its length limit refuses publishes (`x-overflow: reject-publish`); the
/// gateway answers 503 with Retry-After and nothing is accepted. The limit is lowered to 0
/// by a policy, as an operator would, in a virtual host of the test's own.
@Suite("A full event queue", .needs(.broker))
struct FullQueueTests {
    @Test func aFullEventQueueMakesTheGatewayAnswer503AndAcceptNothing() async throws {
        let vhost = "herald-full-\(UUID().uuidString.prefix(8))"
        try await TestBroker.rabbitmqctl("add_vhost", vhost)
        try await TestBroker.rabbitmqctl("set_permissions", "-p", vhost, TestBroker.url.user, ".*", ".*", ".*")
        try await TestBroker.rabbitmqctl(
            "set_policy", "-p", vhost, "--apply-to", "queues", "full", "^test\\.gateway\\.events\\.",
            #"{"max-length":0,"overflow":"reject-publish"}"#)
        let base = TestBroker.urlString.hasSuffix("/") ? TestBroker.urlString : TestBroker.urlString + "/"
        let gateway = try await GatewayFixture(amqpURL: base + vhost)
        try await eventually("the gateway's publisher to connect") { gateway.runtime.requirePublisher.isConnected }
        let answer = await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: FlowControlTests.push("full-1"))
        #expect(answer.status == 503)
        #expect((answer.json["detail"] as? String)?.contains("queue is full") == true, "\(answer.json)")
        #expect(answer.headers["retry-after"] != nil)
        #expect(await gateway.events.inbox.count == 0)
        await gateway.stop()
        try await TestBroker.rabbitmqctl("delete_vhost", vhost)
    }
}
