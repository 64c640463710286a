import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceKit
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
        let tls = try tlsConfiguration(url)
        let deadline = ContinuousClock.now + timeout
        try await probe(url, tls: tls, deadline: deadline, logger: logger)
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls.map { url.tls == .prefer ? PostgresClient.Configuration.TLS.prefer($0) : .require($0) } ?? .disable)
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
        while true {
            do {
                try await database.query("SELECT 1")
                if let schema { try await database.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)")) }
                return database
            } catch {
                if ContinuousClock.now > deadline {
                    database.runner.cancel()
                    throw StorageError("PostgreSQL at \(url) does not answer: \(described(error))")
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Connects once, directly, until the server answers or `deadline`: the pool reports a
    /// failed connection only as its circuit breaker tripping, a minute later, while a direct
    /// one says at once why (a certificate refused, which no retry mends).
    static func probe(_ url: PostgresURL, tls: TLSConfiguration?, deadline: ContinuousClock.Instant, logger: Logger) async throws {
        let context = try tls.map { try NIOSSLContext(configuration: $0) }
        let configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: context.map { url.tls == .prefer ? PostgresConnection.Configuration.TLS.prefer($0) : .require($0) } ?? .disable)
        while true {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try await connection.close()
                return
            } catch {
                if let refused = certificateRefusal(error, url: url) { throw refused }
                if let refused = refusal(error, url: url) { throw refused }
                if ContinuousClock.now > deadline {
                    throw StorageError("PostgreSQL at \(url) does not answer: \(described(error))")
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// The TLS for `url`'s sslmode (nil: in clear): the certificate checked as libpq checks
    /// it, against `caFile` or the system's CAs, TLS 1.2 or newer, a client certificate when given.
    static func tlsConfiguration(_ url: PostgresURL) throws -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        switch url.tls {
        case .disable: return nil
        case .prefer: configuration.certificateVerification = .none
        case .require: configuration.certificateVerification = url.caFile == nil ? .none : .noHostnameVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let caFile = url.caFile {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            } catch {
                throw StorageError("HERALD_DATABASE_CA_FILE \(caFile): not a readable PEM file of CA certificates")
            }
        }
        if let certificateFile = url.certificateFile, let keyFile = url.keyFile {
            do {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            } catch {
                throw StorageError("HERALD_DATABASE_CERT_FILE \(certificateFile) and HERALD_DATABASE_KEY_FILE \(keyFile): not a readable PEM certificate and private key")
            }
        }
        return configuration
    }

    /// What a failed connection says: a PostgreSQL error's summary (its description is one
    /// generic sentence), else the error's full reflection (NIO's and TLS's details).
    static func described(_ error: any Error) -> String {
        (error as? any SummarizedError)?.summary ?? String(reflecting: error)
    }

    /// A clear error when the server refused the connection for a reason no retry mends (its
    /// SQLSTATE class 28, a wrong user or password, or 3D, no such database); nil otherwise.
    static func refusal(_ error: any Error, url: PostgresURL) -> StorageError? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState], ["28", "3D"].contains(String(state.prefix(2))) else { return nil }
        return StorageError("PostgreSQL at \(url) refused the connection: \(error.summary)")
    }

    /// A clear error when TLS refused the server's certificate (which no retry mends), naming
    /// the setting to look at; nil for any other failure.
    static func certificateRefusal(_ error: any Error, url: PostgresURL) -> StorageError? {
        let text = String(reflecting: error)
        let trusted = url.caFile.map { "the CA in HERALD_DATABASE_CA_FILE (\($0))" } ?? "the system's trust store (set HERALD_DATABASE_CA_FILE to the server's CA)"
        if text.contains("failedToValidateHostname") {
            return StorageError("refused PostgreSQL at \(url): its TLS certificate does not name the host \(url.host) (connect by a name the certificate has, or use sslmode=verify-ca)")
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return StorageError("refused PostgreSQL at \(url): its TLS certificate is not signed by \(trusted)")
        }
        if text.contains("sslUnsupported") {
            return StorageError("PostgreSQL at \(url) does not offer TLS, which sslmode=\(url.tls.rawValue) requires")
        }
        return nil
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
