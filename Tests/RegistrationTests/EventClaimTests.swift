import Foundation
import GRDB
import HeraldStorage
import HeraldTestSupport
@testable import Registration
import Testing

/// Claiming events before fanning them out: one claim per event however many copies are
/// handled at once, on each backend.
@Suite("Event claims")
struct EventClaimTests {
    typealias Key = EventKey

    @Test(arguments: StoreBackend.available)
    func twoCopiesOfAnEventInOneBatchAreClaimedOnce(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let claims = try await store.claim([Key(app: "a", eventId: "e1"), Key(app: "a", eventId: "e1"), Key(app: "b", eventId: "e1")])
        #expect(claims == [.claimed, .inFlight, .claimed])
    }

    @Test(arguments: StoreBackend.available)
    func copiesClaimedConcurrentlyFanOutOnce(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Several rounds of eight claimers: two tasks of one process racing for the same
        // events is where a claim could be given twice.
        for round in 0..<10 {
            let keys = (0..<200).map { Key(app: "a", eventId: "r\(round)-e\($0)") }
            let claims = try await withThrowingTaskGroup(of: [EventClaim].self) { group in
                for _ in 0..<8 { group.addTask { try await store.claim(keys) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let twice = keys.indices.filter { index in claims.filter { $0[index] == .claimed }.count != 1 }
            #expect(twice.isEmpty, "round \(round): \(twice.count) of \(keys.count) events not claimed exactly once")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aProcessedEventIsNotClaimedAgain(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        _ = try await store.claim([key])
        #expect(try await store.isProcessed(app: "a", eventId: "e1") == false, "a claim is not processed yet")
        try await store.markProcessed([key])
        #expect(try await store.isProcessed(app: "a", eventId: "e1"))
        #expect(try await store.claim([key]) == [.processed])
    }

    @Test(arguments: StoreBackend.available)
    func aReleasedClaimIsClaimedAgain(_ backend: StoreBackend) async throws {
        let (store, directory) = try await RegistrySamples.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        #expect(try await store.claim([key]) == [.claimed])
        #expect(try await store.claim([key]) == [.inFlight])
        await store.release([key])
        #expect(try await store.claim([key]) == [.claimed])
    }

    /// One process owns a SQLite file: a claim it does not hold was left by one that died.
    @Test func aClaimLeftByAProcessThatDiedIsTakenOverAtOnceInSQLite() async throws {
        let (store, directory) = try await RegistrySamples.store(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        #expect(try await store.claim([key]) == [.claimed])
        let restarted = try SQLiteRegistrationStore(directory: directory)
        #expect(try await restarted.claim([key]) == [.claimed])
    }

    /// A claim's transaction can fail after the in-flight set was touched (the disk filled up
    /// between the inserts and the commit): the events must stay free to claim, or every later
    /// copy waits for a batch that no longer exists and is dead-lettered.
    @Test func aClaimWhoseTransactionFailedLeavesNothingInFlightInSQLite() async throws {
        let directory = RegistrySamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteRegistrationStore(directory: directory)
        // Claimed once and released: its row stays, as when a batch's log failed on a full disk.
        let held = Key(app: "a", eventId: "held")
        #expect(try await store.claim([held]) == [.claimed])
        await store.release([held])
        // A page limit is SQLite's own way to run out of room, with a full disk's error.
        try await store.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let fresh = (0..<2_000).map { Key(app: "a", eventId: "new-\($0)-\(String(repeating: "x", count: 64))") }
        let error = await #expect(throws: DatabaseError.self) { try await store.claim([held] + fresh) }
        #expect(error?.resultCode == .SQLITE_FULL)
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        #expect(try await store.claim([held]) == [.claimed], "the failed claim left the event in flight")
        #expect(try await store.claim([fresh[0]]) == [.claimed])
    }
}

/// Replicas of Registration on one PostgreSQL database: an event is fanned out by one of them
/// at a time, a released claim is free at once, a dead replica's claim after its lease.
@Suite("Event claims across replicas", .needs(.database))
struct ReplicaEventClaimTests {
    typealias Key = EventKey

    /// `count` replicas' stores on one new database.
    static func replicas(_ count: Int) async throws -> [PostgresRegistrationStore] {
        let url = try await TestDatabase.freshURL()
        var stores: [PostgresRegistrationStore] = []
        for _ in 0..<count {
            stores.append(try await PostgresRegistrationStore(database: PostgresPool.open(url, logger: .init(label: "test"), maximumConnections: 4)))
        }
        return stores
    }

    @Test func aCopyAnotherReplicaHoldsIsHeldElsewhereUntilThatReplicaFinishes() async throws {
        let stores = try await Self.replicas(2)
        let key = Key(app: "a", eventId: "e1")
        #expect(try await stores[0].claim([key]) == [.claimed])
        #expect(try await stores[1].claim([key]) == [.heldElsewhere])
        try await stores[0].markProcessed([key])
        #expect(try await stores[1].claim([key]) == [.processed])
    }

    @Test func aClaimReleasedByOneReplicaIsClaimedByAnotherAtOnce() async throws {
        let stores = try await Self.replicas(2)
        let key = Key(app: "a", eventId: "e1")
        #expect(try await stores[0].claim([key]) == [.claimed])
        await stores[0].release([key])
        #expect(try await stores[1].claim([key]) == [.claimed])
    }

    @Test func aDeadReplicasClaimIsTakenOverOnceItsLeaseHasRunOut() async throws {
        let stores = try await Self.replicas(2)
        let key = Key(app: "a", eventId: "e1")
        let now = Date()
        #expect(try await stores[0].claim([key], now: now) == [.claimed])
        #expect(try await stores[1].claim([key], now: now.addingTimeInterval(stores[1].claimLease - 1)) == [.heldElsewhere])
        #expect(try await stores[1].claim([key], now: now.addingTimeInterval(stores[1].claimLease + 1)) == [.claimed])
        // The first replica, come back, finds the claim no longer its own.
        #expect(try await stores[0].claim([key], now: now.addingTimeInterval(stores[1].claimLease + 2)) == [.heldElsewhere])
    }

    @Test func fourReplicasClaimingTheSameEventsAtOnceClaimEachOnce() async throws {
        let stores = try await Self.replicas(4)
        let keys = (0..<200).map { Key(app: "a", eventId: "e\($0)") }
        let claims = try await withThrowingTaskGroup(of: [EventClaim].self) { group in
            for store in stores { group.addTask { try await store.claim(keys) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for index in keys.indices {
            #expect(claims.filter { $0[index] == .claimed }.count == 1, "\(keys[index].eventId)")
            #expect(claims.allSatisfy { [.claimed, .heldElsewhere].contains($0[index]) })
        }
    }
}
