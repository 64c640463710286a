import Foundation
import Registry
import Testing

/// Claiming events before fanning them out: one claim per event however many copies are
/// handled at once, on a real SQLite file.
@Suite("Event claims")
struct EventClaimTests {
    typealias Key = RegistrationStore.EventKey

    @Test func twoCopiesOfAnEventInOneBatchAreClaimedOnce() async throws {
        let (store, directory) = try RegistrySamples.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let claims = try await store.claim([Key(app: "a", eventId: "e1"), Key(app: "a", eventId: "e1"), Key(app: "b", eventId: "e1")])
        #expect(claims == [.claimed, .inFlight, .claimed])
    }

    @Test func copiesClaimedConcurrentlyFanOutOnce() async throws {
        let (store, directory) = try RegistrySamples.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = (0..<200).map { Key(app: "a", eventId: "e\($0)") }
        let claims = try await withThrowingTaskGroup(of: [RegistrationStore.Claim].self) { group in
            for _ in 0..<4 { group.addTask { try await store.claim(keys) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for index in keys.indices {
            #expect(claims.filter { $0[index] == .claimed }.count == 1, "\(keys[index].eventId)")
        }
    }

    @Test func aProcessedEventIsNotClaimedAgain() async throws {
        let (store, directory) = try RegistrySamples.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        _ = try await store.claim([key])
        #expect(try await store.isProcessed(app: "a", eventId: "e1") == false, "a claim is not processed yet")
        try await store.markProcessed([key])
        #expect(try await store.isProcessed(app: "a", eventId: "e1"))
        #expect(try await store.claim([key]) == [.processed])
    }

    @Test func aReleasedClaimIsClaimedAgain() async throws {
        let (store, directory) = try RegistrySamples.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        #expect(try await store.claim([key]) == [.claimed])
        #expect(try await store.claim([key]) == [.inFlight])
        store.release([key])
        #expect(try await store.claim([key]) == [.claimed])
    }

    @Test func aClaimLeftByAProcessThatDiedIsTakenOver() async throws {
        let (store, directory) = try RegistrySamples.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Key(app: "a", eventId: "e1")
        #expect(try await store.claim([key]) == [.claimed])
        let restarted = try RegistrationStore(directory: directory)
        #expect(try await restarted.claim([key]) == [.claimed])
    }
}
