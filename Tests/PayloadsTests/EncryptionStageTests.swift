import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Logging
import Messaging
import Payloads
import ServiceKit
import ServiceLifecycle
import Testing

/// herald-encryption's stage on the real broker, between private queues.
struct EncryptionStageFixture {
    let work = TestBroker.workTopology("encryption")
    let routes: EncryptionStage.Routes
    let fcm: QueueSpec
    let hms: QueueSpec
    let outcomes: QueueSpec
    let runtime: ServiceRuntime

    init() throws {
        let id = UUID().uuidString.prefix(8)
        let dispatch = ExchangeSpec("test.dispatch.\(id)", kind: .direct)
        let outcomeExchange = ExchangeSpec("test.outcomes.\(id)", kind: .topic)
        fcm = QueueSpec("test.dispatch.\(id).fcm")
        hms = QueueSpec("test.dispatch.\(id).hms")
        outcomes = QueueSpec("test.outcomes.\(id)")
        routes = EncryptionStage.Routes(input: work.queue, dispatch: dispatch, outcomes: outcomeExchange)
        let topology = work.topology.merged(with: AMQPTopology(
            exchanges: [dispatch, outcomeExchange], queues: [fcm, hms, outcomes],
            bindings: [
                BindingSpec(exchange: dispatch.name, queue: fcm.name, routingKey: "fcm"),
                BindingSpec(exchange: dispatch.name, queue: hms.name, routingKey: "hms"),
                BindingSpec(exchange: outcomeExchange.name, queue: outcomes.name, routingKey: "#"),
            ]))
        runtime = try ServiceRuntime(
            name: "test-encryption-\(id)", defaultPort: 0,
            environment: ["HERALD_AMQP_URL": TestBroker.urlString, "HERALD_LOG_LEVEL": ProcessInfo.processInfo.environment["HERALD_TEST_LOG_LEVEL"] ?? "critical", "HERALD_SHUTDOWN_TIMEOUT": "10"],
            topology: topology)
    }

    func publish(_ delivery: Delivery) async throws {
        try await runtime.requirePublisher.publish(OutgoingMessage(contract: delivery, exchange: work.exchange.name, routingKey: "work"))
    }

    /// Runs the stage while `body` runs, then shuts it down gracefully and cleans up.
    func withStage(collecting queues: [QueueSpec], _ body: ([Collector]) async throws -> Void) async throws {
        let collectors = queues.map { Collector(runtime.connection("collect:\($0.name)"), queue: $0.name) }
        let group = ServiceGroup(services: [EncryptionStage.make(runtime: runtime, routes: routes, prefetch: 32)], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        do {
            try await body(collectors)
        } catch {
            await finish(group, running, collectors)
            throw error
        }
        await finish(group, running, collectors)
    }

    private func finish(_ group: ServiceGroup, _ running: Task<Void, any Error>, _ collectors: [Collector]) async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        for collector in collectors { await collector.stop() }
        await runtime.requirePublisher.close()
        await work.cleanUp()
        for queue in [fcm, hms, outcomes] { try? await TestBroker.admin.delete(queue: queue.name) }
    }
}

@Suite("The encryption stage", .enabled(if: TestBroker.shouldRun))
struct EncryptionStageTests {
    typealias S = PayloadSamples

    @Test func eachDeliveryBecomesADispatchRequestOnItsPlatformsRoutingKey() async throws {
        let fixture = try EncryptionStageFixture()
        let encrypted = S.upstraMessage(S.device(.fcm, os: .android, key: S.deviceKey))
        var plain = S.webcomChildren(S.device(.hms, os: .android))
        plain.occurredAt = Date()
        try await fixture.withStage(collecting: [fixture.fcm, fixture.hms]) { collectors in
            try await fixture.publish(encrypted)
            try await fixture.publish(plain)
            try await collectors[0].inbox.waitUntil("the FCM request") { $0.count == 1 }
            try await collectors[1].inbox.waitUntil("the HMS request") { $0.count == 1 }

            let fcmMessage = try #require(await collectors[0].inbox.messages.first)
            #expect(fcmMessage.properties.type == DispatchRequest.contractName)
            #expect(fcmMessage.properties.messageId == "\(encrypted.deliveryId)#1")
            #expect(fcmMessage.properties.correlationId == encrypted.eventId)
            let request = try fcmMessage.decode(DispatchRequest.self)
            #expect(request.data["enc"] == "aes128gcm" && request.data["kid"] == "device-key-1")
            let plaintext = try WebPushEncryption.decrypt(
                try #require(Base64URL.decode(request.data["payload"] ?? "")), privateKey: S.devicePrivateKey, authSecret: S.deviceAuth)
            let object = try JSONSerialization.jsonObject(with: plaintext) as? [String: Any]
            #expect(object?["event"] as? String == encrypted.eventId)

            let hmsRequest = try #require(await collectors[1].inbox.messages.first).decode(DispatchRequest.self)
            #expect(hmsRequest.platform == .hms && hmsRequest.data["path"] == "/rooms/r1/messages")
        }
    }

    @Test func aDeliveryThatCannotBeSentBecomesAnOutcomeWithItsReason() async throws {
        let fixture = try EncryptionStageFixture()
        var noKey = S.sudoEmail(S.device(.fcm, os: .ios))
        noKey.addressKey = nil
        var expired = S.smartIDAuth(S.device(.fcm, os: .android))
        expired.options.ttlSeconds = 1
        expired.occurredAt = Date().addingTimeInterval(-60)
        try await fixture.withStage(collecting: [fixture.outcomes, fixture.fcm]) { collectors in
            try await fixture.publish(noKey)
            try await fixture.publish(expired)
            try await collectors[0].inbox.waitUntil("two outcomes") { $0.count == 2 }
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            let failed = try #require(outcomes.first { $0.deliveryId == noKey.deliveryId })
            #expect(failed.status == .failed && failed.reason?.contains("encryption is required") == true)
            let late = try #require(outcomes.first { $0.deliveryId == expired.deliveryId })
            #expect(late.status == .expired)
            #expect(await collectors[1].inbox.count == 0, "nothing was dispatched")
        }
    }

    @Test func anUndecodableInputIsDeadLetteredWithItsReason() async throws {
        let fixture = try EncryptionStageFixture()
        try await fixture.withStage(collecting: [fixture.work.deadQueue]) { collectors in
            try await fixture.runtime.requirePublisher.publish(OutgoingMessage(
                exchange: fixture.work.exchange.name, routingKey: "work", body: Data(#"{"deliveryId":"x"}"#.utf8),
                properties: MessageProperties(type: Delivery.contractName, messageId: "broken-1")))
            try await collectors[0].inbox.waitUntil("the dead letter") { $0.count == 1 }
            let letter = try #require(await collectors[0].inbox.messages.first)
            #expect(letter.properties.messageId == "broken-1")
            guard case .string(let reason)? = letter.properties.headers["x-herald-reason"] else {
                Issue.record("no reason header"); return
            }
            #expect(reason.hasPrefix("undecodable"))
        }
    }
}
