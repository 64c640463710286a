import HeraldStorage
import HeraldTestSupport
import Logging
import PostgresNIO
import ServiceKit
import Testing

/// What logs and dead letters say of a PostgreSQL error: postgres-nio's `PSQLError` describes
/// itself with one generic sentence, so Herald names the error by its SQLSTATE and, where the
/// server's message cannot echo a value the query carried, that message.
@Suite("PostgreSQL errors in logs and dead letters", .needs(.database))
struct PostgresErrorSummaryTests {
    static var logger: Logger {
        var logger = Logger(label: "herald.test.postgres-errors")
        logger.logLevel = .critical
        return logger
    }

    /// The error the server answers `sql` with.
    static func error(of sql: String) async throws -> any Error {
        let pool = try await TestDatabase.fresh(maximumConnections: 1)
        defer { pool.close() }
        do {
            _ = try await pool.client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
        } catch {
            return error
        }
        throw TestFailure("\(sql) did not fail")
    }

    @Test("an error naming an object says what the server said, with its SQLSTATE")
    func namesTheServersMessage() async throws {
        let error = try await Self.error(of: "SELECT * FROM no_such_table")
        #expect(summary(of: error) == "PostgreSQL: relation \"no_such_table\" does not exist (SQLSTATE 42P01)")
    }

    @Test("a data error, whose message can echo a value, is named by its SQLSTATE only")
    func keepsValuesOut() async throws {
        let error = try await Self.error(of: "SELECT 'secret-token-value'::uuid")
        let said = summary(of: error)
        #expect(said == "PostgreSQL: data exception (SQLSTATE 22P02)")
        #expect(!said.contains("secret-token-value"))
    }
}
