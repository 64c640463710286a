import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Messaging
import Registry
import ServiceKit
import Testing

@Suite("Applying token revocations", .enabled(if: TestBroker.shouldRun))
struct RevocationStageTests {
    typealias S = RegistrySamples

    @Test(arguments: StoreBackend.available)
    func aRevocationRemovesTheDeviceOrKeepsARenewedOneAndEmitsAnOutcome(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sent = Date()
        try await store.register(app: "a", S.device("stale", token: "dead-1"), now: sent.addingTimeInterval(-60))
        try await store.register(app: "a", S.device("renewed", token: "dead-2"), now: sent.addingTimeInterval(60))
        let harness = try StageHarness("revocations", exchanges: ["outcomes": .topic], queues: ["outcomes": ("outcomes", "#")])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        try await harness.run([RegistrationStages.revoking(runtime: harness.runtime, store: store, routes: routes)], collecting: ["outcomes"]) { collectors in
            for token in ["dead-1", "dead-2"] {
                try await harness.publish(TokenRevoked(app: "a", platform: .fcm, token: token, reason: "UNREGISTERED", failedSendAt: sent, deliveryId: "del-\(token)", eventId: "ev"))
            }
            try await collectors[0].inbox.waitUntil("two outcomes") { $0.count == 2 }
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            #expect(outcomes.first { $0.deliveryId == "del-dead-1" }?.reason?.hasPrefix("device stale removed") == true)
            #expect(outcomes.first { $0.deliveryId == "del-dead-2" }?.reason?.contains("kept") == true)
            #expect(outcomes.allSatisfy { $0.status == .revoked && $0.providerCode == "UNREGISTERED" })
        }
        #expect(try await store.device(app: "a", deviceId: "stale") == nil)
        #expect(try await store.device(app: "a", deviceId: "renewed") != nil)
    }
}
