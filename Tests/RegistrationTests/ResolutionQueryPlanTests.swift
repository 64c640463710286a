import Foundation
import GRDB
import HeraldModel
@testable import Registration
import Testing

/// The resolution queries use their indexes: an event's cost must not grow with the app's
/// number of devices.
@Suite("Resolution query plans")
struct ResolutionQueryPlanTests {
    @Test func devicesListeningToAPushIdAreFoundThroughThePushIdIndexNotAScanOfTheApp() async throws {
        let directory = RegistrySamples.temporaryDirectory()
        let store = try SQLiteRegistrationStore(directory: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        for n in 0..<50 {
            try await store.register(app: "demo", RegistrySamples.device("d\(n)", pushIds: ["p\(n)"]))
        }
        let plan = try await store.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteRegistrationStore.deviceIdsByPushIdSQL(count: 2), arguments: ["demo", "p1", "p2"])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("pushId=?"), "\(plan)")
    }

    @Test func aClientRegistrationFindsTheDevicesItWouldTouchThroughTheirIndexesNotAScanOfTheApp() async throws {
        let directory = RegistrySamples.temporaryDirectory()
        let store = try SQLiteRegistrationStore(directory: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        for n in 0..<50 {
            try await store.register(app: "demo", RegistrySamples.device("d\(n)", user: "u\(n)"))
        }
        let plan = try await store.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteRegistrationStore.registrationOwnersSQL, arguments: ["demo", "d1", "demo", "token-d2", "demo"])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("app=? AND deviceId=?") && plan.contains("app=? AND token=?"), "\(plan)")
    }

    @Test func anEventIsFoundInTheLogThroughItsKeyNotAScanOfTheAppsEvents() async throws {
        let directory = RegistrySamples.temporaryDirectory()
        let store = try SQLiteRegistrationStore(directory: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.logEvents((0..<50).map { LoggedEvent(app: "demo", eventId: "e\($0)", source: "api", kind: "k", acceptedAt: Date(), deliveries: 1) })
        let event = EventKey(app: "demo", eventId: "e1")
        let plan = try await store.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteRegistrationStore.loggedEventSQL, arguments: [event.logKey, "demo", "e1"])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("eventLogByKey (key=?)"), "\(plan)")
    }
}
