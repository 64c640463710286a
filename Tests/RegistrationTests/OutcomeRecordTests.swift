import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import StageTestSupport
import Logging
import Messaging
import Registration
import ServiceKit
import Testing

/// Registration's record of what became of each delivery, behind `GET /events/{eventId}`.
struct OutcomeRecordTests {
    typealias S = RegistrySamples

    static func outcome(_ delivery: String, _ status: OutcomeStatus, at seconds: TimeInterval, event: String = "ev-1", reason: String? = nil) -> Outcome {
        Outcome(deliveryId: delivery, eventId: event, app: "a", status: status, reason: reason, providerCode: status == .revoked ? "UNREGISTERED" : nil,
                at: Date(timeIntervalSince1970: 1_800_000_000 + seconds))
    }

    @Test(arguments: StoreBackend.available)
    func eachDeliveryKeepsItsLatestOutcomeWhateverOrderTheyArriveIn(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.record([Self.outcome("d1", .retrying, at: 1, reason: "UNAVAILABLE")])
        try await store.record([Self.outcome("d1", .delivered, at: 3), Self.outcome("d2", .revoked, at: 2)])
        // A retry outcome that the broker delivered late does not hide the delivery.
        try await store.record([Self.outcome("d1", .retrying, at: 2, reason: "UNAVAILABLE")])
        try await store.record([Self.outcome("other", .delivered, at: 1, event: "ev-2")])
        let status = try #require(try await store.eventStatus(app: "a", eventId: "ev-1"))
        #expect(status.deliveries.map(\.deliveryId) == ["d1", "d2"])
        #expect(status.deliveries[0].status == .delivered && status.deliveries[0].reason == nil && status.deliveries[0].updates == 3)
        #expect(status.deliveries[0].at == Date(timeIntervalSince1970: 1_800_000_003))
        #expect(status.deliveries[1].status == .revoked && status.deliveries[1].providerCode == "UNREGISTERED")
        #expect(status.resolved == false)
    }

    @Test(arguments: StoreBackend.available)
    func anUnknownEventHasNoStatusAndAResolvedOneWithoutOutcomesHasAnEmptyOne(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await store.eventStatus(app: "a", eventId: "nope") == nil)
        try await store.markProcessed(app: "a", eventId: "ev-3")
        #expect(try await store.eventStatus(app: "a", eventId: "ev-3") == EventStatus(eventId: "ev-3", resolved: true, deliveries: []))
        #expect(try await store.eventStatus(app: "b", eventId: "ev-3") == nil)
    }

    @Test(arguments: StoreBackend.available)
    func outcomesOlderThanTheirWindowArePruned(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.record([Self.outcome("old", .delivered, at: 0), Self.outcome("new", .delivered, at: 100)])
        let pruned = try await store.prune(now: Date(timeIntervalSince1970: 1_800_000_050), window: 3600, auditWindow: 3600, outcomeWindow: 10)
        #expect(pruned.outcomes == 1)
        #expect(try await store.eventStatus(app: "a", eventId: "ev-1")?.deliveries.map(\.deliveryId) == ["new"])
    }
}

@Suite("Outcome retention")
struct OutcomeRetentionTests {
    @Test("outcomes are kept 7 days unless HERALD_OUTCOME_RETENTION_DAYS says otherwise; a bad value names the variable")
    func retentionFromTheEnvironment() async throws {
        let (store, directory) = try await RegistrySamples.store(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test")
        #expect(try RegistrationPruner.fromEnvironment([:], store: store, logger: logger).outcomeWindow == 7 * 24 * 3600)
        #expect(try RegistrationPruner.fromEnvironment(["HERALD_OUTCOME_RETENTION_DAYS": "30"], store: store, logger: logger).outcomeWindow == 30 * 24 * 3600)
        for bad in ["0", "366", "a week"] {
            let error = #expect(throws: ConfigurationError.self) {
                _ = try RegistrationPruner.fromEnvironment(["HERALD_OUTCOME_RETENTION_DAYS": bad], store: store, logger: logger)
            }
            #expect(error?.setting == "HERALD_OUTCOME_RETENTION_DAYS")
        }
    }
}

@Suite("Retention in hours and the idempotency window")
struct RetentionWindowTests {
    static func pruner(_ environment: [String: String]) async throws -> RegistrationPruner {
        let (store, directory) = try await RegistrySamples.store(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try RegistrationPruner.fromEnvironment(environment, store: store, logger: Logger(label: "test"))
    }

    @Test("HERALD_OUTCOME_RETENTION_HOURS keeps the log for hours, and pruning runs every sixtieth of it")
    func retentionInHours() async throws {
        let pruner = try await Self.pruner(["HERALD_OUTCOME_RETENTION_HOURS": "1"])
        #expect(pruner.outcomeWindow == 3600 && pruner.interval == .seconds(60))
        #expect(try await Self.pruner([:]).interval == .seconds(24 * 60))  // a sixtieth of the 24-hour window
    }

    @Test("HERALD_IDEMPOTENCY_WINDOW_HOURS sets how long a repeated event id is recognised, 24 hours unless set")
    func idempotencyWindow() async throws {
        #expect(try await Self.pruner([:]).window == 24 * 3600)
        #expect(try await Self.pruner(["HERALD_IDEMPOTENCY_WINDOW_HOURS": "2"]).window == 2 * 3600)
    }

    @Test("a bad hour count, or retention given both in days and in hours, names the setting")
    func badSettings() async throws {
        for (environment, setting) in [
            (["HERALD_IDEMPOTENCY_WINDOW_HOURS": "0"], "HERALD_IDEMPOTENCY_WINDOW_HOURS"),
            (["HERALD_OUTCOME_RETENTION_HOURS": "8761"], "HERALD_OUTCOME_RETENTION_HOURS"),
            (["HERALD_OUTCOME_RETENTION_HOURS": "2", "HERALD_OUTCOME_RETENTION_DAYS": "2"], "HERALD_OUTCOME_RETENTION_HOURS"),
        ] {
            await #expect(throws: ConfigurationError.self) { _ = try await Self.pruner(environment) }
            do { _ = try await Self.pruner(environment) } catch let error as ConfigurationError { #expect(error.setting == setting) }
        }
    }
}

@Suite("Recording outcomes from the broker", .needs(.broker))
struct OutcomeRecordingStageTests {
    @Test(arguments: StoreBackend.available)
    func everyOutcomePublishedToTheExchangeIsRecorded(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try StageHarness("outcomes", exchanges: ["outcomes": .topic], queues: [:])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        try await harness.run([RegistrationStages.recordingOutcomes(runtime: harness.runtime, store: store, routes: routes)], collecting: []) { _ in
            for index in 0..<50 {
                try await harness.publish(OutcomeRecordTests.outcome("d\(index)", index % 5 == 0 ? .retrying : .delivered, at: Double(index)))
            }
            try await eventually("50 outcomes recorded") { try await store.eventStatus(app: "a", eventId: "ev-1")?.deliveries.count == 50 }
        }
        let status = try #require(try await store.eventStatus(app: "a", eventId: "ev-1"))
        #expect(status.deliveries.filter { $0.status == .retrying }.count == 10)
    }

    @Test(arguments: StoreBackend.available)
    func anOutcomeAnAppAskedToBeCalledBackAboutIsOneCallbackOnceRecorded(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let apps = AppsConfiguration(apps: ["a": AppConfiguration(callbacks: .init(url: "https://tenant.example/cb", signingSecretFile: "/s", events: [.deliveryFailed]))])
        let harness = try StageHarness(
            "outcome-callbacks", exchanges: ["outcomes": .topic, "dispatch": .direct], queues: ["callbacks": ("dispatch", "callback")])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        let stage = RegistrationStages.recordingOutcomes(runtime: harness.runtime, apps: apps, store: store, routes: routes, callbacks: harness.exchanges["dispatch"]!)
        try await harness.run([stage], collecting: ["callbacks"]) { collectors in
            // A callback's own failure is not called back; published first, so any callback
            // of it would come before the failed delivery's.
            var own = OutcomeRecordTests.outcome("cb-1", .failed, at: 12)
            own.eventId = CallbackEvent.eventIdPrefix + "cb-1"
            try await harness.publish(own)
            var failed = OutcomeRecordTests.outcome("d-failed", .failed, at: 10)
            failed.providerCode = "INVALID_ARGUMENT"
            try await harness.publish(failed)
            try await harness.publish(OutcomeRecordTests.outcome("d-delivered", .delivered, at: 11))
            try await eventually("the outcomes recorded") {
                try await store.eventStatus(app: "a", eventId: "ev-1")?.deliveries.count == 2
            }
            try await collectors[0].inbox.waitUntil("the failed delivery's callback") { !$0.isEmpty }
            let callbacks = try await collectors[0].inbox.messages.map { try $0.decode(DispatchRequest.self) }
            #expect(callbacks.count == 1, "\(callbacks.map(\.data))")
            #expect(callbacks.first?.kind == "delivery.failed")
            #expect(callbacks.first?.data == ["app": "a", "eventId": "ev-1", "deliveryId": "d-failed", "status": "failed", "providerCode": "INVALID_ARGUMENT"])
        }
    }

    @Test(arguments: StoreBackend.available)
    func anEventsLastFinalOutcomeIsOneEventCompletedCallbackWithItsCounts(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let apps = AppsConfiguration(apps: ["a": AppConfiguration(callbacks: .init(url: "https://tenant.example/cb", signingSecretFile: "/s", events: [.eventCompleted]))])
        let harness = try StageHarness(
            "event-completed", exchanges: ["outcomes": .topic, "dispatch": .direct], queues: ["callbacks": ("dispatch", "callback")])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        let stage = RegistrationStages.recordingOutcomes(runtime: harness.runtime, apps: apps, store: store, routes: routes, callbacks: harness.exchanges["dispatch"]!)
        try await store.logEvents([LoggedEvent(app: "a", eventId: "ev-1", source: "api", kind: "chat.message", acceptedAt: Date(), deliveries: 3)])
        try await harness.run([stage], collecting: ["callbacks"]) { collectors in
            try await harness.publish(OutcomeRecordTests.outcome("d1", .retrying, at: 1))
            try await harness.publish(OutcomeRecordTests.outcome("d1", .delivered, at: 2))
            try await harness.publish(OutcomeRecordTests.outcome("d2", .filtered, at: 3))
            try await eventually("two outcomes recorded") { try await store.eventStatus(app: "a", eventId: "ev-1")?.deliveries.count == 2 }
            try await harness.publish(OutcomeRecordTests.outcome("d3", .revoked, at: 4))
            try await collectors[0].inbox.waitUntil("the event's completion") { !$0.isEmpty }
            // A repeat of the last outcome, once recorded, completes nothing again.
            try await harness.publish(OutcomeRecordTests.outcome("d3", .revoked, at: 4))
            try await eventually("the repeat recorded") {
                try await store.eventStatus(app: "a", eventId: "ev-1")?.deliveries.first { $0.deliveryId == "d3" }?.updates == 2
            }
            let callbacks = try await collectors[0].inbox.messages.map { try $0.decode(DispatchRequest.self) }
            #expect(callbacks.count == 1, "\(callbacks.map(\.data))")
            #expect(callbacks.first?.kind == "event.completed")
            #expect(callbacks.first?.data == [
                "app": "a", "eventId": "ev-1", "source": "api", "kind": "chat.message", "status": "partial", "deliveries": "3",
                "delivered": "1", "failed": "0", "expired": "0", "revoked": "1", "filtered": "1",
            ])
        }
    }

    /// A repeated outcome (the broker's redelivery, a replica's copy) is called back again,
    /// as delivery is at least once, with the same id: the `webhook-id` a receiver drops
    /// repeats on.
    @Test func aRepeatedOutcomesCallbackHasTheSameId() async throws {
        let (store, directory) = try await RegistrySamples.store(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let apps = AppsConfiguration(apps: ["a": AppConfiguration(callbacks: .init(url: "https://tenant.example/cb", signingSecretFile: "/s", events: [.deliveryFailed]))])
        let harness = try StageHarness(
            "outcome-repeats", exchanges: ["outcomes": .topic, "dispatch": .direct], queues: ["callbacks": ("dispatch", "callback")])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["outcomes"]!, outcomes: harness.exchanges["outcomes"]!)
        let stage = RegistrationStages.recordingOutcomes(runtime: harness.runtime, apps: apps, store: store, routes: routes, callbacks: harness.exchanges["dispatch"]!)
        try await harness.run([stage], collecting: ["callbacks"]) { collectors in
            let failed = OutcomeRecordTests.outcome("d-failed", .failed, at: 10)
            try await harness.publish(failed)
            try await harness.publish(failed)
            try await collectors[0].inbox.waitUntil("both callbacks") { $0.count == 2 }
            let callbacks = try await collectors[0].inbox.messages.map { try $0.decode(DispatchRequest.self) }
            #expect(Set(callbacks.map(\.deliveryId)).count == 1 && callbacks.allSatisfy { $0.kind == "delivery.failed" })
        }
    }
}
