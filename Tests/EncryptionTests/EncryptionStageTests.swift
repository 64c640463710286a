import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldTestSupport
import HeraldStackTestSupport
import Logging
import Messaging
import Encryption
import ServiceKit
import ServiceLifecycle
import Testing
import StageTestSupport

/// herald-encryption's stage on the real broker, between private queues.
struct EncryptionStageFixture {
    let harness: StageHarness
    var runtime: ServiceRuntime { harness.runtime }
    var routes: StageRoutes {
        StageRoutes(input: harness.work.queue, output: harness.exchanges["dispatch"]!, outcomes: harness.exchanges["outcomes"]!)
    }

    init() throws {
        harness = try StageHarness(
            "encryption", exchanges: ["dispatch": .direct, "outcomes": .topic],
            queues: ["fcm": ("dispatch", "fcm"), "hms": ("dispatch", "hms"), "outcomes": ("outcomes", "#")], providers: .herald)
    }

    func publish(_ delivery: Delivery) async throws { try await harness.publish(delivery) }

    func withStage(collecting roles: [String], _ body: ([Collector]) async throws -> Void) async throws {
        try await harness.run([EncryptionStage.make(runtime: runtime, herald: harness.herald, routes: routes, prefetch: 32)], collecting: roles, body)
    }
}

@Suite("The encryption stage", .needs(.broker))
struct EncryptionStageTests {
    typealias S = PayloadSamples

    @Test func eachDeliveryBecomesADispatchRequestOnItsPlatformsRoutingKey() async throws {
        let fixture = try EncryptionStageFixture()
        let encrypted = S.upstraMessage(S.device(.fcm, os: .android, key: S.deviceKey))
        var plain = S.webcomChildren(S.device(.hms, os: .android))
        plain.occurredAt = Date()
        try await fixture.withStage(collecting: ["fcm", "hms"]) { collectors in
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
        try await fixture.withStage(collecting: ["outcomes", "fcm"]) { collectors in
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
        try await fixture.withStage(collecting: ["dead"]) { collectors in
            try await fixture.runtime.requirePublisher.publish(OutgoingMessage(
                exchange: fixture.harness.work.exchange.name, routingKey: "work", body: Data(#"{"deliveryId":"x"}"#.utf8),
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

/// A dispatch request that no dispatcher takes in time expires at the broker, which
/// dead-letters it for Registration to report (pure: the emissions only).
@Suite("Dispatch requests expire at the broker")
struct DispatchExpiryTests {
    typealias S = PayloadSamples

    @Test func aRequestWithATTLExpiresAtTheBrokerWhenItsTTLRunsOut() throws {
        var delivery = S.webcomChildren(S.device(.hms, os: .android))
        delivery.occurredAt = S.now.addingTimeInterval(-10)
        delivery.options.ttlSeconds = 60
        let emissions = try EncryptionStage.emissions(for: delivery, builder: PayloadBuilder(providers: .herald, sources: .herald), now: S.now)
        #expect(emissions.count == 1)
        #expect(emissions[0].message.properties.expiration == "50000")
    }

    @Test func aRequestWithoutATTLIsKeptByTheBrokerUntilTheQueuesOwnLimit() throws {
        var delivery = S.webcomChildren(S.device(.hms, os: .android))
        delivery.occurredAt = S.now
        delivery.options.ttlSeconds = nil
        let emissions = try EncryptionStage.emissions(for: delivery, builder: PayloadBuilder(providers: .herald, sources: .herald), now: S.now)
        #expect(emissions[0].message.properties.expiration == nil)
    }
}
