import Foundation
import HeraldModel
import HeraldStorage
import Logging
import BenchmarkSupport
import PostgresNIO
import Registration

/// `herald-registration-bench lists`: how long a page of `GET /events` and `GET /devices`
/// takes from a store holding `events` logged events (each with one outcome) and `devices`
/// devices, and how much space they take. A benchmark, not a test.
enum ListPages {
    /// With `keep`, the store is filled where herald-registration finds it and left there
    /// (scripts/bench-lists then reads the same pages through the gateway): for SQLite, the
    /// data directory; for PostgreSQL, a database URL whose schema `registration` is filled.
    static func run(events: Int, devices: Int, backend: String, keep: String? = nil) async throws {
        let logger = Logger(label: "bench")
        let directory = keep.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("herald-lists-bench-\(UUID().uuidString)")
        defer { if keep == nil { try? FileManager.default.removeItem(at: directory) } }
        let store: any RegistrationStore
        var pool: PostgresPool?
        let schema = keep == nil ? "bench_" + UUID().uuidString.prefix(8).lowercased() : "registration"
        switch backend {
        case "sqlite":
            store = try SQLiteRegistrationStore(directory: directory)
        case "postgres":
            let url = keep ?? ProcessInfo.processInfo.environment["HERALD_DATABASE_URL"] ?? "postgres://herald:herald@127.0.0.1:54329/herald"
            pool = try await PostgresPool.open(try PostgresURL(url), logger: logger, schema: schema, maximumConnections: 8)
            store = try await PostgresRegistrationStore(database: pool!)
        default:
            throw BenchError("backend: sqlite or postgres, not \(backend)")
        }
        let app = "bench"
        let now = Date()
        let sources = [EventSource.api, .smartID, .evernym, .upstra, .sudoEmail, .webcom].map(\.rawValue)
        let statuses: [OutcomeStatus] = [.delivered, .delivered, .delivered, .delivered, .filtered, .failed, .expired, .revoked]
        let clock = ContinuousClock()
        // Over six days, newest last: the order the log grows in.
        var started = clock.now
        for chunk in stride(from: 0, to: events, by: 1000) {
            let range = chunk..<min(chunk + 1000, events)
            let at = { (n: Int) in now.addingTimeInterval(-6 * 24 * 3600 * Double(events - n) / Double(events)) }
            try await store.logEvents(range.map { n in
                LoggedEvent(app: app, eventId: "api:e\(n)", source: sources[n % sources.count], kind: "kind.\(n % 20)", acceptedAt: at(n), deliveries: 1)
            })
            try await store.record(range.map { n in
                Outcome(deliveryId: "x\(n)", eventId: "api:e\(n)", app: app, status: statuses[n % statuses.count], at: at(n).addingTimeInterval(0.5),
                        platform: n % 3 == 0 ? .apns : .fcm, deviceId: "d\(n % max(1, devices))")
            })
        }
        let fillEvents = StageThroughput.seconds(clock.now - started)
        started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for n in stride(from: worker, to: devices, by: 8) {
                        try await store.register(app: app, DeviceRegistration(
                            deviceId: "d\(n)", platform: n % 3 == 0 ? .apns : .fcm, token: "token-\(n)-\(UUID().uuidString)", os: n % 3 == 0 ? .ios : .android,
                            userId: "u\(n / 2)", pushIds: [], locale: "en"), now: now.addingTimeInterval(-Double(devices - n)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let fillDevices = StageThroughput.seconds(clock.now - started)
        print(#"{"measure":"list_fill","backend":"\#(backend)","events":\#(events),"devices":\#(devices),"eventSeconds":\#(String(format: "%.1f", fillEvents)),"deviceSeconds":\#(String(format: "%.1f", fillDevices))}"#)

        /// The median and the slowest of `rounds` runs of `page`, in milliseconds.
        func measure(_ name: String, rounds: Int = 21, _ page: () async throws -> Int) async throws {
            var times: [Double] = []
            var rows = 0
            for _ in 0..<rounds {
                let start = clock.now
                rows = try await page()
                times.append(StageThroughput.seconds(clock.now - start) * 1000)
            }
            times.sort()
            print(#"{"measure":"list_page_ms","backend":"\#(backend)","page":"\#(name)","rows":\#(rows),"medianMs":\#(String(format: "%.2f", times[times.count / 2])),"maxMs":\#(String(format: "%.2f", times.last!))}"#)
        }
        try await measure("events, first page") { try await store.events(app: app, EventQuery()).events.count }
        // The cursor of the page half-way down the list, walked to once.
        var cursor: String?
        for _ in 0..<(events / 2 / ListLimits.largestPage) {
            cursor = try await store.events(app: app, EventQuery(cursor: cursor, limit: ListLimits.largestPage)).nextCursor
        }
        try await measure("events, half-way down (cursor)") { [cursor] in try await store.events(app: app, EventQuery(cursor: cursor)).events.count }
        try await measure("events, status=failed") { try await store.events(app: app, EventQuery(status: .failed)).events.count }
        try await measure("events, source=webcom") { try await store.events(app: app, EventQuery(source: "webcom")).events.count }
        try await measure("events, kind=kind.7 since 3 days") {
            try await store.events(app: app, EventQuery(kind: "kind.7", since: now.addingTimeInterval(-3 * 24 * 3600))).events.count
        }
        try await measure("events, 200 rows") { try await store.events(app: app, EventQuery(limit: ListLimits.largestPage)).events.count }
        try await measure("devices, first page") { try await store.devices(app: app, DeviceQuery()).devices.count }
        var deviceCursor: String?
        for _ in 0..<(devices / 2 / ListLimits.largestPage) {
            deviceCursor = try await store.devices(app: app, DeviceQuery(cursor: deviceCursor, limit: ListLimits.largestPage)).nextCursor
        }
        try await measure("devices, half-way down (cursor)") { [deviceCursor] in try await store.devices(app: app, DeviceQuery(cursor: deviceCursor)).devices.count }
        try await measure("devices, one user's") { try await store.devices(app: app, DeviceQuery(userId: "u\(devices / 4)")).devices.count }
        try await measure("devices, platform=apns") { try await store.devices(app: app, DeviceQuery(platform: .apns)).devices.count }
        try await measure("devices, token suffix (a scan)", rounds: 5) {
            try await store.devices(app: app, DeviceQuery(tokenSuffix: "-\(UUID().uuidString.suffix(12))")).devices.count
        }
        try await measure("devices, lastOutcome=revoked", rounds: 5) { try await store.devices(app: app, DeviceQuery(lastOutcome: .revoked)).devices.count }
        try await measure("stats, 1 hour", rounds: 11) { try await store.stats(app: app, since: now.addingTimeInterval(-3600), until: now).minutes.count }
        try await measure("stats, 24 hours", rounds: 5) { try await store.stats(app: app, since: now.addingTimeInterval(-24 * 3600), until: now).minutes.count }

        // Space: the log and the outcomes (and their indexes), per event.
        var bytes = 0
        if let pool {
            for size in try await pool.query("SELECT (pg_total_relation_size('eventlog') + pg_total_relation_size('outcomes'))::bigint", logger: logger).decode(Int64.self) {
                bytes = Int(size)
            }
            if keep == nil { try await pool.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger) }
            pool.close()
        } else {
            // The whole file (devices too: run with devices=0 for the events' share).
            for name in [SQLiteRegistrationStore.fileName, SQLiteRegistrationStore.fileName + "-wal"] {
                let path = directory.appendingPathComponent(name).path
                bytes += ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
            }
        }
        let what = pool == nil ? "the file" : "eventLog and outcomes with their indexes"
        print(#"{"measure":"event_space","backend":"\#(backend)","events":\#(events),"devices":\#(devices),"of":"\#(what)","bytes":\#(bytes),"bytesPerEvent":\#(events > 0 ? bytes / events : 0)}"#)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
