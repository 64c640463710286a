import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import StageTestSupport
import Messaging
import Registration
import ServiceKit
import Synchronization
import Testing

/// The resolving stage on the real broker and a real SQLite file.
@Suite("Resolving events into deliveries", .needs(.broker))
struct ResolutionTests {
    typealias S = RegistrySamples

    struct Fixture {
        let store: any RegistrationStore
        let directory: URL
        let harness: StageHarness

        init(_ backend: StoreBackend) async throws {
            (store, directory) = try await S.store(backend)
            harness = try StageHarness(
                "registration", exchanges: ["deliveries": .topic, "outcomes": .topic],
                queues: ["resolved": ("deliveries", "resolved"), "outcomes": ("outcomes", "#")])
        }

        func run(store: (any AudienceStore & EventClaimStore & EventLogStore)? = nil, _ body: ([Collector]) async throws -> Void) async throws {
            let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["deliveries"]!, outcomes: harness.exchanges["outcomes"]!)
            try await harness.run([RegistrationStages.resolving(runtime: harness.runtime, apps: harness.herald.apps, store: store ?? self.store, routes: routes)], collecting: ["resolved", "outcomes"], body)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func deliveries(_ collector: Collector) async throws -> [Delivery] {
        try await collector.inbox.messages.map { try $0.decode(Delivery.self) }
    }

    @Test(arguments: StoreBackend.available)
    func eachFannedOutEventIsLoggedWithTheOutcomesItAwaits(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        let store = fixture.store
        try await store.register(app: "demo", S.device("u1-a", user: "u1"))
        try await store.register(app: "demo", S.device("u1-b", user: "u1"))
        try await fixture.run { collectors in
            try await fixture.harness.publish(S.event("two", audience: .users(["u1"])))
            try await fixture.harness.publish(S.event("nobody", audience: .users(["nobody"])))
            try await collectors[0].inbox.waitUntil("2 deliveries") { $0.count == 2 }
            try await collectors[1].inbox.waitUntil("the no-audience outcome") { $0.count == 1 }
            let logged = try await store.events(app: "demo", EventQuery()).events
            #expect(Dictionary(uniqueKeysWithValues: logged.map { ($0.eventId, $0.deliveries) }) == ["two": 2, "nobody": 1])
            #expect(logged.allSatisfy { $0.source == "api" && $0.kind == "test" && $0.status == .pending })
        }
    }

    @Test(arguments: StoreBackend.available)
    func eachAudienceFormResolvesToItsDevicesWithDeterministicIds(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        let store = fixture.store
        try await store.register(app: "demo", S.device("u1-a", user: "u1"))
        try await store.register(app: "demo", S.device("u1-b", user: "u1", key: S.deviceKey))
        try await store.register(app: "demo", S.device("u2-a", user: "u2", pushIds: ["p1", "p2"]))
        try await store.register(app: "demo", S.device("u3-a", user: "u3", pushIds: ["p2"]))
        try await store.register(app: "other", S.device("x", user: "u1"))
        try await store.setAddressKey(app: "demo", emailAddressId: "addr-1", keyId: "ak", publicKeyDER: "MIIB", ownerUserId: "u2")
        try await store.setSponsee(app: "demo", Sponsee(sponseeId: "sponsee-1", type: 4, value: "FCM:sponsee-token"))

        let events: [(NotificationEvent, Set<String>)] = [
            (S.event("users", audience: .users(["u1", "nobody"])), ["u1-a", "u1-b"]),
            (S.event("pushIds", audience: .pushIds(["p2", "p1"])), ["u2-a", "u3-a"]),
            (S.event("devices", audience: .devices(["u3-a", "missing"])), ["u3-a"]),
            (S.event("tokens", audience: .tokens([DirectToken(platform: .fcm, token: "direct-1")])), [AudienceResolverIds.direct("direct-1")]),
            (S.event("email", audience: .emailAddressId("addr-1")), ["u2-a"]),
            (S.event("sponsee", audience: .users(["sponsee-1"])), ["sponsee:sponsee-1"]),
        ]
        try await fixture.run { collectors in
            for (event, _) in events { try await fixture.harness.publish(event) }
            let total = events.reduce(0) { $0 + $1.1.count }
            try await collectors[0].inbox.waitUntil("\(total) deliveries") { $0.count == total }
            let deliveries = try await Self.deliveries(collectors[0])
            for (event, expected) in events {
                let mine = deliveries.filter { $0.eventId == event.id }
                #expect(Set(mine.map(\.device.id)) == expected, "\(event.id)")
                #expect(mine.allSatisfy { $0.deliveryId == Delivery.makeId(app: "demo", eventId: event.id, deviceId: $0.device.id) })
            }
            #expect(deliveries.first { $0.device.id == "u1-b" }?.device.key != nil, "the device key travels with the delivery")
            #expect(deliveries.first { $0.eventId == "email" }?.addressKey?.keyId == "ak", "the address key is attached")
            #expect(deliveries.first { $0.eventId == "tokens" }?.device.token == "direct-1")
            #expect(deliveries.first { $0.eventId == "sponsee" }?.device.token == "sponsee-token")
        }
    }

    @Test(arguments: StoreBackend.available)
    func anEventIdSeenBeforeIsAcknowledgedWithoutPublishingAgain(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        try await fixture.store.register(app: "demo", S.device("d1", user: "u1"))
        let event = S.event("once", audience: .users(["u1"]))
        try await fixture.run { collectors in
            try await fixture.harness.publish(event)
            try await collectors[0].inbox.waitUntil("the delivery") { $0.count == 1 }
            try await eventually("the event marked processed") { try await fixture.store.isProcessed(app: "demo", eventId: "once") }
            try await fixture.harness.publish(event)
            // A later event through the same queue proves the repeat was consumed, not pending.
            try await fixture.harness.publish(S.event("after", audience: .users(["u1"])))
            try await collectors[0].inbox.waitUntil("the later delivery") { messages in messages.contains { $0.properties.correlationId == "after" } }
            #expect(try await Self.deliveries(collectors[0]).filter { $0.eventId == "once" }.count == 1)
        }
    }

    /// After a lost connection the broker hands an event's copy to a new batch while the
    /// batch holding the first copy is still in flight. Should that batch fail (its publishes
    /// refused, its retry too, its channel gone), only the copy is left: it must wait for the
    /// first to end and fan out if the first did not, not be acknowledged as a repeat.
    @Test(arguments: StoreBackend.available)
    func aCopyOfAnEventAnotherBatchHoldsFansOutWhenThatBatchFails(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        try await fixture.store.register(app: "demo", S.device("d1", user: "u1"))
        let event = S.event("held", audience: .users(["u1"]))
        let key = EventKey(app: "demo", eventId: "held")
        // Another batch of this process holds the event (the store object is shared).
        #expect(try await fixture.store.claim([key]) == [.claimed])
        let observed = ObservedClaims(fixture.store)
        try await fixture.run(store: observed) { collectors in
            try await fixture.harness.publish(event)
            // The stage has asked for the copy's claim while the other batch holds it.
            try await eventually("the stage claiming the copy") { observed.asked.withLock { $0.contains(key) } }
            // That batch fails and releases its claim, publishing nothing.
            await fixture.store.release([key])
            try await collectors[0].inbox.waitUntil("the copy's delivery") { messages in messages.contains { $0.properties.correlationId == "held" } }
            try await eventually("the event marked processed") { try await fixture.store.isProcessed(app: "demo", eventId: "held") }
        }
    }

    /// A batch waiting for copies other batches hold may win some of them (their batches
    /// failed) and then fail itself (its store full): what it won must be released with the
    /// rest, or the next copies wait for a batch that is gone and end dead-lettered.
    @Test(arguments: StoreBackend.available)
    func aBatchThatFailsWhileWaitingForCopiesReleasesTheClaimsItWon(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        try await fixture.store.register(app: "demo", S.device("d1", user: "u1"))
        let (won, stillHeld) = (EventKey(app: "demo", eventId: "won"), EventKey(app: "demo", eventId: "still-held"))
        // Another batch of this process holds both events (the store object is shared).
        #expect(try await fixture.store.claim([won, stillHeld]) == [.claimed, .claimed])
        let observed = ObservedClaims(fixture.store)
        observed.failOnce.withLock { $0 = [stillHeld] }
        try await fixture.run(store: observed) { collectors in
            // Both copies in one message, so in one batch.
            let copies = try [won, stillHeld].map { key in
                try OutgoingMessage(contract: S.event(key.eventId, audience: .users(["u1"])), exchange: fixture.harness.work.exchange.name, routingKey: "work")
            }
            try await fixture.harness.runtime.requirePublisher.publish(contentsOf: MessagePack.pack(copies))
            try await eventually("the stage waiting for both") { observed.asked.withLock { $0.isSuperset(of: [won, stillHeld]) } }
            await fixture.store.release([won])
            try await eventually("the batch failing once it won one of them") { observed.failed.withLock { $0 } }
            await fixture.store.release([stillHeld])
            try await collectors[0].inbox.waitUntil(timeout: .seconds(30), "both deliveries") { messages in
                Set(messages.compactMap(\.properties.correlationId)) == ["won", "still-held"]
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func copiesOfAnEventPublishedTogetherFanOutOnce(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        try await fixture.store.register(app: "demo", S.device("d1", user: "u1"))
        let event = S.event("twice", audience: .users(["u1"]))
        try await fixture.run { collectors in
            for _ in 0..<5 { try await fixture.harness.publish(event) }
            try await fixture.harness.publish(S.event("after", audience: .users(["u1"])))
            try await collectors[0].inbox.waitUntil("the later delivery") { messages in messages.contains { $0.properties.correlationId == "after" } }
            try await eventually("the event marked processed") { try await fixture.store.isProcessed(app: "demo", eventId: "twice") }
            #expect(try await Self.deliveries(collectors[0]).filter { $0.eventId == "twice" }.count == 1)
        }
    }

    @Test(arguments: StoreBackend.available)
    func anEventWithNoDeviceYieldsANoAudienceOutcome(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        try await fixture.run { collectors in
            try await fixture.harness.publish(S.event("lonely", audience: .users(["nobody"])))
            try await collectors[1].inbox.waitUntil("the outcome") { $0.count == 1 }
            let outcome = try await collectors[1].inbox.messages[0].decode(Outcome.self)
            #expect(outcome.eventId == "lonely" && outcome.reason == "no audience")
            #expect(await collectors[0].inbox.count == 0)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aFanOutTo10000UsersWithTwoDevicesEachPublishesEveryDelivery(_ backend: StoreBackend) async throws {
        let fixture = try await Fixture(backend)
        for n in 0..<10_000 {
            try await fixture.store.register(app: "demo", S.device("d\(n)-a", user: "u\(n)"))
            try await fixture.store.register(app: "demo", S.device("d\(n)-b", user: "u\(n)"))
        }
        let event = S.event("big", audience: .users((0..<10_000).map { "u\($0)" }))
        try await fixture.run { collectors in
            try await fixture.harness.publish(event)
            try await collectors[0].inbox.waitUntil(timeout: .seconds(60), "20,000 deliveries") { $0.count == 20_000 }
            let ids = Set(try await Self.deliveries(collectors[0]).map(\.deliveryId))
            #expect(ids.count == 20_000)
        }
    }
}

/// The id Registration gives a direct token's target.
enum AudienceResolverIds {
    static func direct(_ token: String) -> String {
        "token:fcm:\(Delivery.makeId(app: "", eventId: "", deviceId: token))"
    }
}

/// The store the stage uses, noting every event it asks to claim: a test waits on it to
/// know the stage has decided on a copy.
/// It can also fail one claim, as a full disk would, when asked for exactly `failOnce`.
final class ObservedClaims: AudienceStore, EventClaimStore, EventLogStore {
    let store: any RegistrationStore
    let asked = Mutex<Set<EventKey>>([])
    let failOnce = Mutex<Set<EventKey>?>(nil)
    let failed = Mutex(false)

    init(_ store: any RegistrationStore) { self.store = store }

    func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory { try await store.lookUp(lookup) }
    func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim] {
        asked.withLock { $0.formUnion(events) }
        if failOnce.withLock({ failing in
            guard let set = failing, set == Set(events) else { return false }
            failing = nil
            return true
        }) {
            failed.withLock { $0 = true }
            throw StageError.unavailable("the store's disk is full")
        }
        return try await store.claim(events, now: now)
    }
    func markProcessed(_ events: [EventKey], at now: Date) async throws { try await store.markProcessed(events, at: now) }
    func release(_ events: [EventKey]) async { await store.release(events) }
    func isProcessed(app: String, eventId: String) async throws -> Bool { try await store.isProcessed(app: app, eventId: eventId) }
    func logEvents(_ events: [LoggedEvent]) async throws { try await store.logEvents(events) }
    func events(app: String, _ query: EventQuery) async throws -> EventPage { try await store.events(app: app, query) }
    func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats { try await store.stats(app: app, since: since, until: until) }
}
