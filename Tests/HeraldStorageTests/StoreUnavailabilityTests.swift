import Foundation
import GRDB
import HeraldStorage
import HeraldTestSupport
import Logging
import PostgresNIO
import ServiceKit
import Testing

/// A store that cannot work now (a full disk, a database going away) makes a stage wait
/// instead of dead-lettering its inputs; a store refusing one input does not.
@Suite("Store failures that mean the service cannot work now")
struct StoreUnavailabilityTests {
    @Test("a SQLite database that is full says the service cannot work now")
    func fullSQLiteDatabase() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try DatabaseQueue(path: directory.appendingPathComponent("full.sqlite").path)
        // A page limit is SQLite's own way to run out of room, with the same error a full disk gives.
        try database.write { db in
            try db.execute(sql: "CREATE TABLE t (v BLOB)")
            try db.execute(sql: "PRAGMA max_page_count = 8")
        }
        let error = try #require(throws: DatabaseError.self) {
            try database.write { db in
                for _ in 0..<64 { try db.execute(sql: "INSERT INTO t VALUES (randomblob(4096))") }
            }
        }
        #expect(error.resultCode == .SQLITE_FULL)
        #expect(StageError.isUnavailable(error))
    }

    @Test("a SQLite constraint violation is the input's failure, not the store's")
    func constraintViolation() throws {
        let database = try DatabaseQueue()
        try database.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)") }
        let error = try #require(throws: DatabaseError.self) {
            try database.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(!StageError.isUnavailable(error))
    }

    @Test("a PostgreSQL server ending the connection says the service cannot work now; a failing query does not",
          .needs(.database))
    func postgresServerGoingAway() async throws {
        let pool = try await TestDatabase.fresh(maximumConnections: 1)
        defer { pool.close() }
        let logger = Logger(label: "test")
        let terminated = await #expect(throws: PSQLError.self) {
            _ = try await pool.client.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: logger).collect()
        }
        #expect(terminated.map(StageError.isUnavailable) == true, "\(String(reflecting: terminated))")
        // The pool replaces the connection the server ended; a failing query is then the query's.
        try await eventually(timeout: .seconds(30), "the pool to answer again") {
            (try? await pool.query("SELECT 1")) != nil
        }
        let division = await #expect(throws: PSQLError.self) {
            _ = try await pool.client.query("SELECT 1 / 0", logger: logger).collect()
        }
        #expect(division.map(StageError.isUnavailable) == false, "\(String(reflecting: division))")
    }

    @Test("a query just after the server ended the pool's connection ends, answered or unavailable, and never waits forever",
          .needs(.database))
    func queriesRacingAnEndedConnectionEnd() async throws {
        let pool = try await TestDatabase.fresh(maximumConnections: 1)
        defer { pool.close() }
        let rounds = 100
        let finished = Completion<[String]>()
        // A task the test does not await: a query that never ends fails the test at the deadline.
        Task {
            var otherErrors: [String] = []
            for _ in 0..<rounds {
                for sql: PostgresQuery in ["SELECT pg_terminate_backend(pg_backend_pid())", "SELECT 1"] {
                    do { try await pool.query(sql) } catch where !StageError.isUnavailable(error) {
                        otherErrors.append(String(reflecting: error))
                    } catch {}
                }
            }
            await finished.set(otherErrors)
        }
        // Generous: a hang is what fails here, not a slow round on two loaded cores (CI once took over 60 s).
        let otherErrors = try await finished.value(within: .seconds(180), "\(rounds) rounds of ending the connection and querying at once")
        #expect(otherErrors.isEmpty, "errors that do not say the database is unavailable: \(otherErrors)")
    }
}
