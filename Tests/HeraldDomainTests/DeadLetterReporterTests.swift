import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Messaging
import ServiceKit
import Testing
import StageTestSupport

/// Accepted means delivered or reported: whatever is dead-lettered with deliveries in it
/// ends with an outcome per delivery. Each test dead-letters through a private work queue
/// with no consumer, whose dead-letter queue the reporter consumes.
@Suite("Reporting dead-lettered deliveries", .serialized, .needs(.broker))
struct DeadLetterReporterTests {
    static func harness() throws -> StageHarness {
        try StageHarness("dead-letters", exchanges: ["outcomes": .topic], queues: ["outcomes": (exchange: "outcomes", key: "#")])
    }

    static func reporter(_ harness: StageHarness) -> DeadLetterReporter {
        DeadLetterReporter(consuming: harness.work.deadQueue, outcomes: harness.exchanges["outcomes"]!, runtime: harness.runtime)
    }

    static func outcomes(_ messages: [ReceivedMessage]) -> [Outcome] {
        messages.compactMap { try? $0.decode(Outcome.self) }
    }

    @Test func aDispatchRequestNoDispatcherTakesBeforeItsTTLIsReportedExpired() async throws {
        let harness = try Self.harness()
        let requests = (1...3).map { TestSandbox.request(token: "t\($0)", id: "expiring-\($0)-\(UUID().uuidString.prefix(6))") }
        // A pack, as Encryption publishes them, that expires at the broker after 50 ms.
        var pack = MessagePack.pack(try requests.map {
            try OutgoingMessage(contract: $0, exchange: harness.work.exchange.name, routingKey: "work", mandatory: true)
        })
        #expect(pack.count == 1)
        pack[0].properties.expiration = "50"
        try await harness.run([Self.reporter(harness)], collecting: ["outcomes"]) { collectors in
            try await harness.runtime.requirePublisher.publish(contentsOf: pack)
            try await collectors[0].inbox.waitUntil("an outcome per request") { Self.outcomes($0).count == 3 }
            let outcomes = await Self.outcomes(collectors[0].inbox.messages)
            #expect(Set(outcomes.map(\.deliveryId)) == Set(requests.map(\.deliveryId)))
            for outcome in outcomes {
                #expect(outcome.status == .expired)
                #expect(outcome.reason == "nothing consumed it from \(harness.work.queue.name) before it expired")
                #expect(outcome.app == "demo" && outcome.providerCode == nil)
            }
        }
    }

    @Test func aDeliveryAStageGaveUpOnIsReportedFailedWithTheStagesReason() async throws {
        let harness = try Self.harness()
        let event = NotificationEvent(id: "api:gave-up-\(UUID().uuidString.prefix(6))", app: "demo", source: .api, kind: "test", occurredAt: Date(), audience: .users(["u1"]))
        let delivery = Delivery(event: event, device: DeviceTarget(id: "d1", platform: .hms, token: "tok", os: .android))
        let letter = try OutgoingMessage(
            contract: delivery, exchange: harness.work.deadExchange.name, routingKey: "allowed",
            headers: ["x-herald-reason": .string("key unusable: not a P-256 point"), "x-herald-stage": .string("encryption.allowed")])
        try await harness.run([Self.reporter(harness)], collecting: ["outcomes"]) { collectors in
            try await harness.runtime.requirePublisher.publish(letter)
            try await collectors[0].inbox.waitUntil("the delivery's outcome") { !Self.outcomes($0).isEmpty }
            let outcome = try #require(await Self.outcomes(collectors[0].inbox.messages).first)
            #expect(outcome.deliveryId == delivery.deliveryId && outcome.eventId == event.id)
            #expect(outcome.status == .failed)
            #expect(outcome.reason == "dead-lettered by encryption.allowed: key unusable: not a P-256 point")
        }
    }

    @Test func anEventThatNeverReachedFanOutIsReportedUnderItsEventId() async throws {
        let harness = try Self.harness()
        let event = NotificationEvent(id: "api:never-\(UUID().uuidString.prefix(6))", app: "demo", source: .api, kind: "test", occurredAt: Date(), audience: .users(["u1"]))
        var message = try OutgoingMessage(contract: event, exchange: harness.work.exchange.name, routingKey: "work", mandatory: true)
        message.properties.expiration = "0"
        try await harness.run([Self.reporter(harness)], collecting: ["outcomes"]) { collectors in
            try await harness.runtime.requirePublisher.publish(message)
            try await collectors[0].inbox.waitUntil("the event's outcome") { !Self.outcomes($0).isEmpty }
            let outcome = try #require(await Self.outcomes(collectors[0].inbox.messages).first)
            #expect(outcome.deliveryId == "\(event.id):event" && outcome.eventId == event.id)
            #expect(outcome.status == .expired)
        }
    }

    @Test func whatCarriesNoDeliveryIsAcknowledgedWithoutAReport() async throws {
        let harness = try Self.harness()
        let outcome = Outcome(deliveryId: "d-x", eventId: "api:x", app: "demo", status: .delivered, at: Date())
        let unreadable = OutgoingMessage(
            exchange: harness.work.deadExchange.name, routingKey: "", body: Data("{not json".utf8),
            properties: .contract(DispatchRequest.contractName, messageId: "garbage", correlationId: "garbage"))
        let event = NotificationEvent(id: "api:marker-\(UUID().uuidString.prefix(6))", app: "demo", source: .api, kind: "test", occurredAt: Date(), audience: .users(["u1"]))
        try await harness.run([Self.reporter(harness)], collecting: ["outcomes"]) { collectors in
            let publisher = harness.runtime.requirePublisher
            try await publisher.publish(unreadable)
            try await publisher.publish(OutgoingMessage(contract: outcome, exchange: harness.work.deadExchange.name, routingKey: ""))
            // A marker after them: once its report is in, the two before it were handled.
            try await publisher.publish(OutgoingMessage(
                contract: event, exchange: harness.work.deadExchange.name, routingKey: "",
                headers: ["x-herald-reason": .string("marker")]))
            try await collectors[0].inbox.waitUntil("the marker's report") { !Self.outcomes($0).isEmpty }
            #expect(await collectors[0].inbox.count == 1)
            try await eventually("the dead-letter queue to be empty") {
                try await TestBroker.admin.readyCount(harness.work.deadQueue.name) == 0
            }
        }
    }
}
