import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import StageTestSupport
import Messaging
import Registration
import ServiceKit
import Testing

@Suite("Applying token revocations", .needs(.broker))
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
        try await harness.run([RegistrationStages.revoking(runtime: harness.runtime, apps: AppsConfiguration(), store: store, routes: routes)], collecting: ["outcomes"]) { collectors in
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

    @Test(arguments: StoreBackend.available)
    func aRemovalIsOneDeviceRevokedCallbackForAnAppThatAsksForIt(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sent = Date()
        try await store.register(app: "a", S.device("stale", user: "ann", token: "dead-token-of-the-stale-phone"), now: sent.addingTimeInterval(-60))
        try await store.register(app: "a", S.device("renewed", token: "dead-2"), now: sent.addingTimeInterval(60))
        let apps = AppsConfiguration(apps: ["a": AppConfiguration(callbacks: .init(url: "https://tenant.example/cb", signingSecretFile: "/s", events: [.deviceRevoked]))])
        let harness = try StageHarness(
            "revocation-callbacks", exchanges: ["outcomes": .topic, "dispatch": .direct],
            queues: ["outcomes": ("outcomes", "#"), "callbacks": ("dispatch", "callback")])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        let stage = RegistrationStages.revoking(runtime: harness.runtime, apps: apps, store: store, routes: routes, callbacks: harness.exchanges["dispatch"]!)
        try await harness.run([stage], collecting: ["outcomes", "callbacks"]) { collectors in
            let gone = TokenRevoked(app: "a", platform: .fcm, token: "dead-token-of-the-stale-phone", reason: "UNREGISTERED", failedSendAt: sent, deliveryId: "del-1", eventId: "ev")
            try await harness.publish(gone)
            try await harness.publish(TokenRevoked(app: "a", platform: .fcm, token: "dead-2", reason: "UNREGISTERED", failedSendAt: sent, deliveryId: "del-2", eventId: "ev"))
            try await collectors[0].inbox.waitUntil("two outcomes") { $0.count == 2 }
            try await collectors[1].inbox.waitUntil("one callback") { $0.count == 1 }
            let callback = try await collectors[1].inbox.messages[0].decode(DispatchRequest.self)
            #expect(callback.platform == .callback && callback.kind == "device.revoked" && callback.app == "a")
            #expect(callback.data["userId"] == "ann" && callback.data["deviceId"] == "stale" && callback.data["providerCode"] == "UNREGISTERED")
            #expect(callback.data["token"] == "dead-t…-phone", "masked: \(callback.data["token"] ?? "")")
            #expect(callback.deliveryId == DispatchRequest.callback(.deviceRevoked, app: "a", key: gone.messageId, data: [:], at: sent).deliveryId,
                    "the id follows from the revocation, so a copy of it is the same callback")
        }
    }
}
