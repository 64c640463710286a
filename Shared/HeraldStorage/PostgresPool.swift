import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// One PostgreSQL database a service's stores share: a connection pool (postgres-nio's
/// `PostgresClient`, running from `open` on), migrations applied once across replicas
/// (under an advisory lock), and, as a `Service`, the pool closed at shutdown after the
/// parts that use it.
public final class PostgresPool: Service, Sendable {
    public let client: PostgresClient
    public let logger: Logger
    private let runner: Task<Void, Never>

    /// A migration: a name (recorded once applied) and its SQL (one or more statements).
    public struct Migration: Sendable {
        public var name: String
        public var sql: String
        public init(_ name: String, _ sql: String) {
            self.name = name
            self.sql = sql
        }
    }

    /// Connects (waiting up to `timeout` for the server to answer) and starts the pool. With
    /// `schema`, the pool's tables live in that schema (created if needed; it is every
    /// connection's search path), so services can share one database without their tables
    /// meeting.
    public static func open(_ url: PostgresURL, logger: Logger, schema: String? = nil, maximumConnections: Int = 20, timeout: Duration = .seconds(30)) async throws -> PostgresPool {
        let tls: PostgresClient.Configuration.TLS
        switch url.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 1
        if let schema {
            guard schema.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
                throw StorageError("schema \(schema): lowercase letters, digits and _ only")
            }
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let database = await PostgresPool(client: client, logger: logger)
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                try await database.query("SELECT 1")
                if let schema { try await database.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)")) }
                return database
            } catch {
                if ContinuousClock.now > deadline {
                    database.runner.cancel()
                    throw StorageError("PostgreSQL at \(url) does not answer: \(String(reflecting: error))")
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Starts the pool's run loop and returns once it is entered (a query before that waits,
    /// with a warning from postgres-nio).
    private init(client: PostgresClient, logger: Logger) async {
        self.client = client
        self.logger = logger
        let (started, continuation) = AsyncStream<Void>.makeStream()
        runner = Task {
            continuation.finish()
            await client.run()
        }
        for await _ in started {}
        await Task.yield()
    }

    /// Runs `query` on a connection of the pool and returns its rows (`PostgresConnection.run`).
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line) async throws -> [PostgresRow] {
        let logger = logger ?? self.logger
        return try await client.withConnection { try await $0.run(query, logger: logger, file: file, line: line) }
    }

    /// Runs `body` with a connection of the pool to itself; its queries go through `run`.
    public func withConnection<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection(body)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws, and
    /// its error thrown as it was (a refusal stays the refusal).
    public func withTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.run("BEGIN", logger: logger)
            let result: Result
            do {
                result = try await body(connection)
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.run("COMMIT", logger: logger)
            return result
        }
    }

    /// Applies the migrations not applied yet, in order, each in its own transaction. Replicas
    /// starting together take turns (a transaction-scoped advisory lock per `scope`).
    public func migrate(scope: String, _ migrations: [Migration]) async throws {
        let logger = logger
        try await withTransaction { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(hashtext(\(scope)))", logger: logger)
            try await connection.run("CREATE TABLE IF NOT EXISTS herald_migrations (scope TEXT NOT NULL, name TEXT NOT NULL, appliedAt TIMESTAMPTZ NOT NULL, PRIMARY KEY (scope, name))", logger: logger)
            var applied = Set<String>()
            for name in try await connection.run("SELECT name FROM herald_migrations WHERE scope = \(scope)", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.sql.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run("INSERT INTO herald_migrations (scope, name, appliedAt) VALUES (\(scope), \(migration.name), \(Date()))", logger: logger)
                logger.info("applied migration", metadata: ["scope": "\(scope)", "migration": "\(migration.name)"])
            }
        }
    }

    /// Runs until graceful shutdown, then closes the pool (the service's other parts, which
    /// stop first, no longer use it).
    public func run() async throws {
        try? await gracefulShutdown()
        close()
        await runner.value
    }

    /// Closes the pool (for tests and tools that do not run it as a service).
    public func close() {
        runner.cancel()
    }
}
