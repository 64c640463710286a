import Foundation
import HeraldModel
import HeraldStorage
import HeraldTestSupport
import Registration
import Testing

/// The log of events behind `GET /events`, `GET /devices` and `GET /stats`: what each event
/// became, a page at a time, on both store backends.
struct EventLogTests {
    typealias S = RegistrySamples

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func logged(_ id: String, deliveries: Int, at seconds: TimeInterval = 0, source: String = "api", kind: String = "chat.message") -> LoggedEvent {
        LoggedEvent(app: "a", eventId: id, source: source, kind: kind, acceptedAt: t0.addingTimeInterval(seconds), deliveries: deliveries)
    }

    static func outcome(_ delivery: String, _ status: OutcomeStatus, event: String = "e1", at seconds: TimeInterval = 1, platform: Platform? = .fcm, device: String? = nil) -> Outcome {
        Outcome(deliveryId: delivery, eventId: event, app: "a", status: status, at: t0.addingTimeInterval(seconds), platform: platform, deviceId: device)
    }

    @Test(arguments: StoreBackend.available)
    func anEventsCountsFollowItsOutcomesAndItCompletesOnceWithItsLastFinalOutcome(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged("e1", deliveries: 2)])
        #expect(try await store.record([Self.outcome("d1", .retrying)]).isEmpty)
        var event = try #require(try await store.events(app: "a", EventQuery()).events.first)
        #expect(event.status == .pending && event.counts.retrying == 1 && event.completedAt == nil)

        let completed = try await store.record([Self.outcome("d1", .delivered, at: 2), Self.outcome("d2", .failed, at: 2)])
        #expect(completed.map(\.summary.eventId) == ["e1"])
        #expect(completed.first?.summary.status == .partial && completed.first?.summary.counts.delivered == 1 && completed.first?.summary.counts.failed == 1)
        // A repeat of an outcome completes nothing again.
        #expect(try await store.record([Self.outcome("d2", .failed, at: 2)]).isEmpty)
        event = try #require(try await store.events(app: "a", EventQuery()).events.first)
        #expect(event.status == .partial && event.counts.retrying == 0 && event.completedAt != nil && event.deliveries == 2)
    }

    @Test(arguments: StoreBackend.available)
    func anEventsStatusSaysWhatBecameOfItsDeliveries(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([
            Self.logged("all-delivered", deliveries: 2, at: 1), Self.logged("all-filtered", deliveries: 1, at: 2),
            Self.logged("none-delivered", deliveries: 2, at: 3), Self.logged("waiting", deliveries: 1, at: 4),
        ])
        try await store.record([
            Self.outcome("a1", .delivered, event: "all-delivered"), Self.outcome("a2", .filtered, event: "all-delivered"),
            Self.outcome("f1", .filtered, event: "all-filtered"),
            Self.outcome("n1", .expired, event: "none-delivered"), Self.outcome("n2", .revoked, event: "none-delivered"),
        ])
        let statuses = Dictionary(uniqueKeysWithValues: try await store.events(app: "a", EventQuery()).events.map { ($0.eventId, $0.status) })
        #expect(statuses == ["all-delivered": .delivered, "all-filtered": .filtered, "none-delivered": .failed, "waiting": .pending])
        #expect(try await store.events(app: "a", EventQuery(status: .failed)).events.map(\.eventId) == ["none-delivered"])
    }

    @Test(arguments: StoreBackend.available)
    func theListIsMostRecentFirstAPageAtATimeWithItsFilters(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two events in one millisecond: the id orders them, and no page loses either.
        try await store.logEvents((0..<7).map { Self.logged("e\($0)", deliveries: 1, at: Double($0 / 2), source: $0 % 2 == 0 ? "api" : "webcom") })
        var seen: [String] = []
        var query = EventQuery(limit: 3)
        repeat {
            let page = try await store.events(app: "a", query)
            #expect(page.events.count <= 3)
            seen += page.events.map(\.eventId)
            query.cursor = page.nextCursor
        } while query.cursor != nil
        #expect(seen == ["e6", "e5", "e4", "e3", "e2", "e1", "e0"])
        #expect(try await store.events(app: "a", EventQuery(source: "webcom")).events.map(\.eventId) == ["e5", "e3", "e1"])
        #expect(try await store.events(app: "a", EventQuery(since: Self.t0.addingTimeInterval(1), until: Self.t0.addingTimeInterval(3))).events.map(\.eventId) == ["e5", "e4", "e3", "e2"])
        #expect(try await store.events(app: "a", EventQuery(kind: "other")).events.isEmpty)
        #expect(try await store.events(app: "b", EventQuery()).events.isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func aCursorTheListDidNotGiveIsRefused(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        await #expect(throws: CommandError.self) { try await store.events(app: "a", EventQuery(cursor: "not a cursor")) }
        await #expect(throws: CommandError.self) { try await store.devices(app: "a", DeviceQuery(cursor: "bm8tbmV3bGluZQ")) }
    }

    @Test(arguments: StoreBackend.available)
    func devicesListNewestFirstWithTheirLatestOutcomeAndFilters(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, id) in ["d0", "d1", "d2", "d3"].enumerated() {
            try await store.register(app: "a", S.device(id, user: index < 3 ? "u1" : "u2", token: "token-\(id)-abcdef", pushIds: ["p-\(id)"], platform: index == 2 ? .hms : .fcm),
                                     now: Self.t0.addingTimeInterval(Double(index)))
        }
        try await store.record([Self.outcome("x1", .delivered, device: "d1"), Self.outcome("x2", .failed, at: 5, device: "d1"), Self.outcome("x3", .delivered, device: "d3")])
        var seen: [String] = []
        var query = DeviceQuery(limit: 3)
        repeat {
            let page = try await store.devices(app: "a", query)
            seen += page.devices.map(\.registration.deviceId)
            query.cursor = page.nextCursor
        } while query.cursor != nil
        #expect(seen == ["d3", "d2", "d1", "d0"])
        let d1 = try #require(try await store.devices(app: "a", DeviceQuery(tokenSuffix: "d1-abcdef")).devices.first)
        #expect(d1.registration.deviceId == "d1" && d1.registration.pushIds == ["p-d1"] && d1.lastOutcome?.status == .failed && d1.lastOutcome?.deliveryId == "x2")
        #expect(try await store.devices(app: "a", DeviceQuery(userId: "u2")).devices.map(\.registration.deviceId) == ["d3"])
        #expect(try await store.devices(app: "a", DeviceQuery(platform: .hms)).devices.map(\.registration.deviceId) == ["d2"])
        #expect(try await store.devices(app: "a", DeviceQuery(lastOutcome: .delivered)).devices.map(\.registration.deviceId) == ["d3"])
        #expect(try await store.devices(app: "a", DeviceQuery(registeredSince: Self.t0.addingTimeInterval(2))).devices.map(\.registration.deviceId) == ["d3", "d2"])
        #expect(try await store.devices(app: "a", DeviceQuery(tokenSuffix: "D1-ABCDEF")).devices.isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func statsCountAcceptedEventsAndOutcomesPerMinuteAndProvider(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged("e1", deliveries: 2, at: 10), Self.logged("e2", deliveries: 1, at: 70)])
        try await store.record([
            Self.outcome("d1", .delivered, at: 20, platform: .fcm), Self.outcome("d2", .failed, at: 75, platform: .apns),
            Self.outcome("d3", .delivered, event: "e2", at: 80, platform: .fcm),
            Self.outcome("c1", .delivered, event: "callback:x", at: 80, platform: "callback"),
            Self.outcome("old", .delivered, event: "e0", at: -200, platform: .fcm),
        ])
        let stats = try await store.stats(app: "a", since: Self.t0, until: Self.t0.addingTimeInterval(180))
        #expect(stats.minutes.count == 3)
        #expect(stats.minutes.map(\.counts.accepted) == [1, 1, 0])
        #expect(stats.minutes.map(\.counts.delivered) == [1, 1, 0])
        #expect(stats.minutes.map(\.counts.failed) == [0, 1, 0])
        #expect(stats.totals.delivered == 2 && stats.totals.failed == 1 && stats.totals.accepted == 2)
        #expect(stats.providers.map(\.platform) == ["apns", "fcm"])
        #expect(stats.providers.last?.totals.delivered == 2 && stats.providers.first?.minutes[1].counts.failed == 1)
    }

    @Test(arguments: StoreBackend.available)
    func loggedEventsArePrunedWithTheOutcomes(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents([Self.logged("old", deliveries: 1, at: 0), Self.logged("new", deliveries: 1, at: 100)])
        let pruned = try await store.prune(now: Self.t0.addingTimeInterval(150), window: 3600, auditWindow: 3600, outcomeWindow: 100)
        #expect(pruned.logged == 1)
        #expect(try await store.events(app: "a", EventQuery()).events.map(\.eventId) == ["new"])
    }

    /// Two replicas recording the last two outcomes of one event at once: exactly one of
    /// them completes it, round after round.
    @Test(.needs(.database))
    func ofTwoReplicasFinishingOneEventAtOnceExactlyOneCompletesIt() async throws {
        let stores = try await ReplicaEventClaimTests.replicas(2)
        for round in 0..<40 {
            let id = "race-\(round)"
            try await stores[0].logEvents([LoggedEvent(app: "a", eventId: id, source: "api", kind: "k", acceptedAt: Self.t0, deliveries: 2)])
            async let first = stores[0].record([Self.outcome("\(id)-1", .delivered, event: id)])
            async let second = stores[1].record([Self.outcome("\(id)-2", .delivered, event: id)])
            let completions = try await first.count + second.count
            #expect(completions == 1, "round \(round)")
        }
    }
}
