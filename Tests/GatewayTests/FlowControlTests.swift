import Foundation
import HeraldTestSupport
import Testing

/// A memory alarm blocks every publisher on the broker, so the test command runs this suite
/// on its own, like the broker restarts (skipped in the main run unless
/// `HERALD_TEST_BROKER_RESTART=1`).
@Suite(
    "A broker under a resource alarm",
    .serialized,
    .enabled(if: TestBroker.shouldRun && ProcessInfo.processInfo.environment["HERALD_TEST_BROKER_RESTART"] == "1")
)
struct FlowControlTests {
    static func push(_ id: String) -> Data {
        Data(#"{"messageId":"\#(id)","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)
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
