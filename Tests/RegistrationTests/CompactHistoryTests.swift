import Foundation
import GRDB
import HeraldModel
import HeraldStorage
import HeraldTestSupport
@testable import Registration
import Testing

/// What the compact history keeps (issue 62): a completed event's delivered deliveries live in
/// its log row instead of an outcome row each, counters answer `/stats`, each device keeps its
/// latest outcome, and the idempotency window is its own setting. Every answer stays the same.
struct CompactHistoryTests {
    typealias S = RegistrySamples

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func id(_ device: String, event: String = "e1") -> String { Delivery.makeId(app: "a", eventId: event, deviceId: device) }

    static func outcome(_ device: String, _ status: OutcomeStatus, event: String = "e1", at seconds: TimeInterval = 1, platform: Platform = .fcm) -> Outcome {
        Outcome(deliveryId: id(device, event: event), eventId: event, app: "a", status: status, at: t0.addingTimeInterval(seconds), platform: platform, deviceId: device)
    }

    static func logged(_ event: String = "e1", deliveries: Int, at seconds: TimeInterval = 0) -> LoggedEvent {
        LoggedEvent(app: "a", eventId: event, source: "api", kind: "chat.message", acceptedAt: t0.addingTimeInterval(seconds), deliveries: deliveries)
    }

    @Test(arguments: StoreBackend.available)
    func aCompletedEventStillListsEachDeliveryWithItsTimeAndHowManyOutcomesCame(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged(deliveries: 3)])
        try await store.markProcessed(app: "a", eventId: "e1", at: Self.t0)
        try await store.record([Self.outcome("p1", .retrying, at: 1), Self.outcome("p1", .delivered, at: 2.5), Self.outcome("p1", .delivered, at: 2.5)])
        try await store.record([Self.outcome("p2", .delivered, at: 3), Self.outcome("p3", .failed, at: 4)])

        let status = try #require(try await store.eventStatus(app: "a", eventId: "e1"))
        let expected = [
            DeliveryStatus(deliveryId: Self.id("p1"), status: .delivered, at: Self.t0.addingTimeInterval(2.5), updates: 3),
            DeliveryStatus(deliveryId: Self.id("p2"), status: .delivered, at: Self.t0.addingTimeInterval(3), updates: 1),
            DeliveryStatus(deliveryId: Self.id("p3"), status: .failed, at: Self.t0.addingTimeInterval(4), updates: 1),
        ].sorted { $0.deliveryId < $1.deliveryId }
        #expect(status.resolved && status.deliveries == expected)
        #expect(status.summary?.status == .partial && status.summary?.counts.delivered == 2 && status.summary?.counts.failed == 1)
    }

    @Test(arguments: StoreBackend.available)
    func aCopyOfADeliveredOutcomeCountsAsAnUpdateAndChangesNoCount(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged(deliveries: 2)])
        #expect(try await store.record([Self.outcome("p1", .delivered), Self.outcome("p2", .delivered)]).count == 1)

        // A copy after the event completed, and a late `retrying` from before the delivery.
        #expect(try await store.record([Self.outcome("p1", .delivered, at: 9), Self.outcome("p2", .retrying, at: 0.5)]).isEmpty)
        let status = try #require(try await store.eventStatus(app: "a", eventId: "e1"))
        let byId = Dictionary(uniqueKeysWithValues: status.deliveries.map { ($0.deliveryId, $0) })
        #expect(byId[Self.id("p1")] == DeliveryStatus(deliveryId: Self.id("p1"), status: .delivered, at: Self.t0.addingTimeInterval(9), updates: 2))
        #expect(byId[Self.id("p2")] == DeliveryStatus(deliveryId: Self.id("p2"), status: .delivered, at: Self.t0.addingTimeInterval(1), updates: 2))
        #expect(status.summary?.counts == EventCounts([(.delivered, 2)]) && status.summary?.status == .delivered)
    }

    @Test(arguments: StoreBackend.available)
    func statsCountEachDeliveredOutcomeOnceBeforeAndAfterItsEventCompletes(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged(deliveries: 3)])
        let window = (Self.t0, Self.t0.addingTimeInterval(600))
        try await store.record([Self.outcome("p1", .delivered, at: 10), Self.outcome("p2", .delivered, at: 70, platform: .hms)])
        let open = try await store.stats(app: "a", since: window.0, until: window.1)
        #expect(open.totals.delivered == 2 && open.totals.accepted == 1)

        try await store.record([Self.outcome("p3", .failed, at: 75)])
        try await store.record([Self.outcome("p1", .delivered, at: 80)])  // a late copy
        let completed = try await store.stats(app: "a", since: window.0, until: window.1)
        #expect(completed.totals.delivered == 2 && completed.totals.failed == 1 && completed.totals.accepted == 1)
        #expect(completed.minutes.map(\.counts.delivered).prefix(2) == [1, 1])
        #expect(Dictionary(uniqueKeysWithValues: completed.providers.map { ($0.platform, $0.totals.delivered) }) == ["fcm": 1, "hms": 1])
    }

    @Test(arguments: StoreBackend.available)
    func aDevicesLatestOutcomeIsKeptWhenItsEventsDeliveriesAreListedInItsRow(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("p1"))
        try await store.logEvents([Self.logged("e1", deliveries: 1), Self.logged("e2", deliveries: 1, at: 5)])
        try await store.record([Self.outcome("p1", .failed, event: "e1", at: 1)])
        try await store.record([Self.outcome("p1", .delivered, event: "e2", at: 6)])

        let recent = try await store.recentOutcomes(app: "a", deviceId: "p1", limit: 20)
        #expect(recent.map(\.eventId) == ["e2", "e1"] && recent.map(\.status) == [.delivered, .failed])
        let page = try await store.devices(app: "a", DeviceQuery(lastOutcome: .delivered))
        #expect(page.devices.map(\.registration.deviceId) == ["p1"] && page.devices.first?.lastOutcome?.eventId == "e2")
        #expect(try await store.devices(app: "a", DeviceQuery(lastOutcome: .failed)).devices.isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func aRepeatedEventIsRecognisedForAtLeastTheWindowWhateverTheLogKeeps(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let event = EventKey(app: "a", eventId: "e1")
        let hour: TimeInterval = 3600
        func prune(at seconds: TimeInterval, window: TimeInterval = hour, retention: TimeInterval = 86_400) async throws -> PruneCounts {
            try await store.prune(now: Self.t0.addingTimeInterval(seconds), window: window, auditWindow: 86_400, outcomeWindow: retention)
        }
        #expect(try await prune(at: 0).events == 0)  // the first generation starts
        #expect(try await store.claim([event], now: Self.t0) == [.claimed])
        try await store.logEvents([Self.logged(deliveries: 0)])
        try await store.markProcessed([event], at: Self.t0)

        // An hour's window inside a day's retention: a copy within the hour is suppressed,
        // through the eight turns of its generations (every 450 s)...
        for turn in 1...8 {
            #expect(try await prune(at: 450 * Double(turn)).events == 0)
        }
        #expect(try await store.claim([event], now: Self.t0.addingTimeInterval(3599)) == [.processed])
        // ...until the ninth turn forgets it, an eighth of the window later; the event is
        // still in the log.
        let pruned = try await prune(at: 4050)
        #expect(pruned.events == 1 && pruned.logged == 0)
        #expect(try await store.events(app: "a", EventQuery()).events.map(\.eventId) == ["e1"])
        #expect(try await store.claim([event], now: Self.t0.addingTimeInterval(4050)) == [.claimed])

        // A day's window with an hour's retention: the log forgets the event, the window does not.
        try await store.markProcessed([event], at: Self.t0.addingTimeInterval(4050))
        let forgotten = try await prune(at: 7650, window: 86_400, retention: hour)
        #expect(forgotten.logged == 1 && forgotten.events == 0)
        #expect(try await store.claim([event], now: Self.t0.addingTimeInterval(7650)) == [.processed])
    }

    /// What a turn frees is an eighth of the window's ids, so the store's size holds steady
    /// instead of dropping and refilling a whole window's worth.
    @Test(arguments: StoreBackend.available)
    func eachTurnForgetsOnlyTheIdsOfAnEighthOfTheWindow(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let generation: TimeInterval = 450
        try await store.prune(now: Self.t0, window: 3600, auditWindow: 86_400, outcomeWindow: 86_400)
        var forgotten: [Int] = []
        for turn in 1...12 {
            try await store.markProcessed(app: "a", eventId: "e\(turn)", at: Self.t0.addingTimeInterval(generation * Double(turn) - 1))
            forgotten.append(try await store.prune(now: Self.t0.addingTimeInterval(generation * Double(turn)), window: 3600, auditWindow: 86_400, outcomeWindow: 86_400).events)
        }
        #expect(forgotten == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
        var recognised: [Bool] = []
        for turn in 1...12 { recognised.append(try await store.isProcessed(app: "a", eventId: "e\(turn)")) }
        #expect(recognised == (1...12).map { $0 > 4 })
    }

    @Test(arguments: StoreBackend.available)
    func aClaimInProgressWhenTheGenerationTurnsIsStillOneClaim(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let event = EventKey(app: "a", eventId: "e1")
        try await store.prune(now: Self.t0, window: 60, auditWindow: 60, outcomeWindow: 86_400)
        #expect(try await store.claim([event], now: Self.t0) == [.claimed])
        try await store.prune(now: Self.t0.addingTimeInterval(60), window: 60, auditWindow: 60, outcomeWindow: 86_400)
        #expect(try await store.claim([event], now: Self.t0.addingTimeInterval(61)) == [.inFlight])
        try await store.markProcessed([event], at: Self.t0.addingTimeInterval(62))
        #expect(try await store.isProcessed(app: "a", eventId: "e1"))
        try await store.prune(now: Self.t0.addingTimeInterval(120), window: 60, auditWindow: 60, outcomeWindow: 86_400)
        #expect(try await store.claim([event], now: Self.t0.addingTimeInterval(121)) == [.processed])
    }

    /// A folder holding Registration's SQLite file migrated up to `migration` (an earlier
    /// release's schema) and filled by `fill`, closed: what an upgrade opens.
    static func formerDatabase(upTo migration: String, _ fill: @escaping @Sendable (Database) throws -> Void) async throws -> URL {
        let directory = S.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: directory.appendingPathComponent(SQLiteRegistrationStore.fileName).path)
        try SQLiteRegistrationStore.migrator.migrate(old, upTo: migration)
        try await old.write(fill)
        try old.close()
        return directory
    }

    @Test func aDatabaseOfTheFormerSchemaIsCarriedOverWithItsHistory() async throws {
        let directory = try await Self.formerDatabase(upTo: "v7: an event's trace") { db in
            try db.execute(sql: """
                INSERT INTO processedEvents (app, eventId, processedAt, claimed) VALUES ('a', 'e1', ?, 0), ('a', 'e2', ?, 0);
                INSERT INTO eventLog (app, eventId, source, kind, acceptedAt, deliveries, delivered, failed, status, completedAt, traceId)
                    VALUES ('a', 'e1', 'api', 'chat.message', ?, 2, 1, 1, 'partial', ?, '0af7651916cd43dd8448eb211c80319c'),
                           ('a', 'e2', 'api', 'chat.message', ?, 1, 0, 0, 'pending', NULL, NULL);
                INSERT INTO outcomes (app, deliveryId, eventId, status, at, updates, platform, deviceId) VALUES
                    ('a', ?, 'e1', 'delivered', ?, 2, 'fcm', 'p1'), ('a', ?, 'e1', 'failed', ?, 1, 'fcm', 'p2');
                """, arguments: [
                    Self.t0, Self.t0, Self.t0, Self.t0.addingTimeInterval(3), Self.t0.addingTimeInterval(10),
                    Self.id("p1"), Self.t0.addingTimeInterval(1), Self.id("p2"), Self.t0.addingTimeInterval(2),
                ])
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteRegistrationStore(directory: directory)
        #expect(try await store.claim([EventKey(app: "a", eventId: "e1")]) == [.processed])
        let status = try #require(try await store.eventStatus(app: "a", eventId: "e1"))
        #expect(status.deliveries.map(\.status) == (Self.id("p1") < Self.id("p2") ? [.delivered, .failed] : [.failed, .delivered]))
        #expect(status.deliveries.first { $0.status == .delivered }?.updates == 2)
        #expect(status.summary?.status == .partial && status.summary?.completedAt == Self.t0.addingTimeInterval(3))
        #expect(status.summary?.traceId == "0af7651916cd43dd8448eb211c80319c")
        #expect(try await store.events(app: "a", EventQuery()).events.map(\.eventId) == ["e2", "e1"])
        #expect(try await store.recentOutcomes(app: "a", deviceId: "p1", limit: 5).map(\.status) == [.delivered])
        let stats = try await store.stats(app: "a", since: Self.t0, until: Self.t0.addingTimeInterval(60))
        #expect(stats.totals.delivered == 1 && stats.totals.failed == 1 && stats.totals.accepted == 2)
    }

    @Test func idsOfTheFormerOlderGenerationAreStillRecognisedAfterTheUpgrade() async throws {
        let v8 = "v8: compact events: hashed idempotency keys, integer times, delivered deliveries in their event's row"
        let directory = try await Self.formerDatabase(upTo: v8) { db in
            try db.execute(sql: "INSERT INTO processedEventsBefore (key, claimed) VALUES (?, 0)", arguments: [EventKey(app: "a", eventId: "e1").digest])
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteRegistrationStore(directory: directory)
        #expect(try await store.claim([EventKey(app: "a", eventId: "e1"), EventKey(app: "a", eventId: "e2")]) == [.processed, .claimed])
    }
}
