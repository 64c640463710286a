import Foundation
import HeraldStorage
import HeraldTestSupport
import Logging
import PostgresNIO
import Testing

/// The stores' PostgreSQL connections over TLS, with libpq's `sslmode`s, against the test
/// server's TLS (its certificate for `localhost`, signed by the tests' CA).
@Suite("PostgreSQL over TLS", .needs(.database, .tls))
struct PostgresTLSTests {
    static var logger: Logger {
        var logger = Logger(label: "herald.test.postgres-tls")
        logger.logLevel = .critical
        return logger
    }

    /// The server's view of the pool's connection: TLS or not, its version, the client
    /// certificate's subject.
    static func serverSide(_ pool: PostgresPool) async throws -> (ssl: Bool, version: String?, clientDN: String?) {
        let rows = try await pool.client.query("SELECT ssl, version, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: logger)
        for try await (ssl, version, clientDN) in rows.decode((Bool, String?, String?).self) { return (ssl, version, clientDN) }
        throw TestFailure("pg_stat_ssl has no row for the connection")
    }

    @Test("sslmode=verify-full with the CA connects over TLS 1.2 or newer")
    func verifyFull() async throws {
        let pool = try await PostgresPool.open(try await TestDatabase.freshTLSURL(.verifyFull), logger: Self.logger, maximumConnections: 1)
        defer { pool.close() }
        let side = try await Self.serverSide(pool)
        #expect(side.ssl)
        #expect(side.version == "TLSv1.3" || side.version == "TLSv1.2", "\(side)")
    }

    @Test("a client certificate is presented to the server when its files are given")
    func clientCertificate() async throws {
        let pool = try await PostgresPool.open(try await TestDatabase.freshTLSURL(.verifyFull, clientCertificate: true), logger: Self.logger, maximumConnections: 1)
        defer { pool.close() }
        #expect(try await Self.serverSide(pool).clientDN?.contains("CN=herald-client") == true)
    }

    @Test("a server whose certificate another CA signed is refused at once, the error naming HERALD_DATABASE_CA_FILE")
    func wrongCA() async throws {
        let otherCA = try TestTLS.file("other-ca.pem")
        for mode in [PostgresURL.TLSMode.verifyFull, .verifyCA, .require] {
            let url = try await TestDatabase.freshTLSURL(mode, caFile: otherCA)
            let started = ContinuousClock.now
            await #expect {
                _ = try await PostgresPool.open(url, logger: Self.logger, maximumConnections: 1, timeout: .seconds(20))
            } throws: {
                "\($0)".contains("its TLS certificate is not signed by the CA in HERALD_DATABASE_CA_FILE (\(otherCA))")
            }
            #expect(ContinuousClock.now - started < .seconds(20), "\(mode): refused without waiting out the timeout")
        }
    }

    @Test("verify-full refuses a host name the certificate does not name; verify-ca takes it")
    func hostName() async throws {
        let url = try await TestDatabase.freshTLSURL(.verifyFull, host: "127.0.0.1")
        await #expect {
            _ = try await PostgresPool.open(url, logger: Self.logger, maximumConnections: 1, timeout: .seconds(20))
        } throws: { "\($0)".contains("does not name the host 127.0.0.1") }
        let pool = try await PostgresPool.open(try await TestDatabase.freshTLSURL(.verifyCA, host: "127.0.0.1"), logger: Self.logger, maximumConnections: 1)
        defer { pool.close() }
        #expect(try await Self.serverSide(pool).ssl)
    }

    @Test("sslmode=require without a CA encrypts without checking the certificate, as libpq does")
    func requireWithoutCA() async throws {
        let pool = try await PostgresPool.open(try await TestDatabase.freshTLSURL(.require, host: "127.0.0.1"), logger: Self.logger, maximumConnections: 1)
        defer { pool.close() }
        #expect(try await Self.serverSide(pool).ssl)
    }

    @Test("the URL's sslmode and the environment's files are read; a CA with a mode that would not check it is refused")
    func parsing() throws {
        let url = try PostgresURL("postgres://herald@db:5432/herald?sslmode=verify-full")
        #expect(url.tls == .verifyFull)
        #expect(url.description == "postgres://herald@db:5432/herald?sslmode=verify-full")
        #expect(throws: StorageError.self) { try PostgresURL("postgres://herald@db/herald?sslmode=verify-fully") }
        #expect { try PostgresURL("postgres://herald@db/herald?sslmode=verify-full&sslrootcert=/ca.pem") } throws: {
            "\($0)".contains("give the file as HERALD_DATABASE_CA_FILE")
        }
        #expect { try PostgresURL("postgres://herald@db/herald?sslmode=prefer").with(caFile: "/ca.pem", certificateFile: nil, keyFile: nil) } throws: {
            "\($0)".contains("sslmode is prefer, which does not check the server's certificate")
        }
        #expect(try PostgresURL("postgres://herald@db/herald?sslmode=verify-ca").with(caFile: "/ca.pem", certificateFile: nil, keyFile: nil).caFile == "/ca.pem")
    }
}
