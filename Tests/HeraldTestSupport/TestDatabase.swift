import Foundation
import HeraldStorage
import Logging
import PostgresNIO

/// The stores' backends a store suite runs against: SQLite and PostgreSQL (whose cases fail
/// without the test server, or are left out where skips are allowed: `TestNeed`).
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public static var available: [StoreBackend] { TestNeed.database.missing == nil || !TestNeed.skipsAllowed ? [.sqlite, .postgres] : [.sqlite] }

    public var description: String { rawValue }
}

/// The test command's throw-away PostgreSQL server (`HERALD_TEST_DATABASE_URL`, set by
/// `scripts/test`); each test gets a database of its own.
public enum TestDatabase {
    public static var url: String? {
        ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var quiet: Logger {
        var logger = Logger(label: "herald.test.postgres")
        logger.logLevel = .warning
        return logger
    }

    /// The URL of a new, empty database on the test server.
    public static func freshURL() async throws -> PostgresURL {
        guard let url else { throw TestFailure("no PostgreSQL: run scripts/test, or set HERALD_TEST_DATABASE_URL") }
        var base = try PostgresURL(url)
        let admin = try await PostgresPool.open(base, logger: quiet, maximumConnections: 1)
        defer { admin.close() }
        let name = "herald_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin.client.query(.init(unsafeSQL: "CREATE DATABASE \(name)"), logger: quiet)
        base.database = name
        return base
    }

    /// A new, empty database's URL as the services take it in `HERALD_DATABASE_URL`.
    public static func freshURLString() async throws -> String {
        let fresh = try await freshURL()
        guard var components = URLComponents(string: url ?? "") else { throw TestFailure("HERALD_TEST_DATABASE_URL is not a URL") }
        components.path = "/" + fresh.database
        return components.string ?? ""
    }

    /// A new, empty database on the test server reached through its TLS (the certificate
    /// names `localhost` only): `mode`, verified against `caFile` (the tests' CA unless given).
    public static func freshTLSURL(_ mode: PostgresURL.TLSMode, host: String = "localhost", caFile: String? = nil, clientCertificate: Bool = false) async throws -> PostgresURL {
        var url = try await freshURL()
        url.host = host
        url.tls = mode
        url.caFile = mode == .verifyCA || mode == .verifyFull ? try caFile ?? TestTLS.file("ca.pem") : caFile
        if clientCertificate {
            url.certificateFile = try TestTLS.file("client.pem")
            url.keyFile = try TestTLS.file("client.key")
        }
        return url
    }

    /// A pool on a new, empty database.
    public static func fresh(maximumConnections: Int = 4) async throws -> PostgresPool {
        try await PostgresPool.open(try await freshURL(), logger: quiet, maximumConnections: maximumConnections)
    }
}
