import Foundation
import HeraldStorage
import HeraldTestSupport
import Logging
import PostgresNIO
import Testing

/// Herald's services as real processes talking to RabbitMQ and PostgreSQL only over TLS, as
/// they do across machines: `amqps://` with `HERALD_AMQP_CA_FILE`, and PostgreSQL with
/// `sslmode=verify-full` and `HERALD_DATABASE_CA_FILE`.
extension ServiceProcesses {
    @Suite("Across machines, over TLS", .needs(.database, .tls))
    struct TLSDeploymentTests {
        /// The database URL the services take, for a fresh database, over TLS to `localhost`.
        static func databaseURL(_ url: PostgresURL) -> String {
            "postgres://\(url.user):\(url.password ?? "")@\(url.host):\(url.port)/\(url.database)?sslmode=\(url.tls.rawValue)"
        }

        @Test("every service connects to RabbitMQ and PostgreSQL over TLS only, and a push is delivered through them")
        func deliversOverTLS() async throws {
            let database = try await TestDatabase.freshTLSURL(.verifyFull)
            let stack = try await HeraldStack.start(
                databaseURL: Self.databaseURL(database), amqpURL: TestTLS.amqpsURLString(),
                environment: ["HERALD_AMQP_CA_FILE": try TestTLS.file("ca.pem"), "HERALD_DATABASE_CA_FILE": try TestTLS.file("ca.pem")])
            do {
                try await stack.expectOK("PUT", "/devices/tls-phone", ["platform": "fcm", "token": "tls-token", "os": "android", "userId": "tls-user"])
                let accepted = try await stack.expectOK("POST", "/events", [
                    "id": "tls-1", "source": "api", "kind": "note", "audience": ["users": ["tls-user"]], "data": ["n": "1"],
                ])
                let eventId = try #require(accepted["eventId"] as? String)
                try await eventually(timeout: .seconds(30), "the push delivered") { !stack.received("tls-token").isEmpty }
                try await eventually(timeout: .seconds(30), "the delivery recorded") {
                    await stack.deliveries(of: eventId).first?["status"] as? String == "delivered"
                }
                // The broker's side: each service's connections are TLS (no other test uses TLS).
                let listing = try await TestBroker.rabbitmqctl("list_connections", "ssl", "client_properties")
                for service in Set(stack.services.map(\.name)) {
                    let ssl = listing.split(separator: "\n").filter { $0.hasPrefix("true") && $0.contains("\"\(service)") }
                    #expect(!ssl.isEmpty, "\(service) has a TLS connection to the broker")
                }
                // PostgreSQL's side: every connection to the stack's database is TLS.
                var logger = Logger(label: "herald.test.tls")
                logger.logLevel = .critical
                let pool = try await PostgresPool.open(database, logger: logger, maximumConnections: 1)
                defer { pool.close() }
                let rows = try await pool.client.query("""
                    SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl)
                    FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                    WHERE a.datname = \(database.database) AND a.pid <> pg_backend_pid()
                    """, logger: logger)
                for try await (encrypted, clear) in rows.decode((Int, Int).self) {
                    #expect(encrypted > 0, "Registration's and Preferences' connections")
                    #expect(clear == 0, "no connection to the database in clear")
                }
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("a service given the wrong CA for the broker is never ready and says why, naming HERALD_AMQP_CA_FILE")
        func wrongBrokerCA() async throws {
            let otherCA = try TestTLS.file("other-ca.pem")
            let service = try ServiceProcess("herald-encryption", environment: [
                "HERALD_AMQP_URL": TestTLS.amqpsURLString(), "HERALD_AMQP_CA_FILE": otherCA,
            ])
            defer { service.discard() }
            try await eventually(timeout: .seconds(30), "the refusal logged") {
                service.logText().contains("not signed by the CA in HERALD_AMQP_CA_FILE (\(otherCA))")
            }
            #expect(service.process.isRunning, "it keeps trying, as with a broker that is down")
            try await eventually(timeout: .seconds(30), "its health endpoint to answer") {
                try await get(port: service.healthPort, path: "/readyz").status != 0
            }
            #expect(try await get(port: service.healthPort, path: "/readyz").status == 503)
        }

        @Test("a service given the wrong CA for PostgreSQL stops at start, naming HERALD_DATABASE_CA_FILE")
        func wrongDatabaseCA() async throws {
            let otherCA = try TestTLS.file("other-ca.pem")
            let database = try await TestDatabase.freshTLSURL(.verifyFull)
            let service = try ServiceProcess("herald-registration", environment: [
                "HERALD_DATABASE_URL": Self.databaseURL(database), "HERALD_DATABASE_CA_FILE": otherCA,
            ])
            defer { service.discard() }
            try await eventually(timeout: .seconds(30), "herald-registration to exit") { !service.process.isRunning }
            #expect(service.process.terminationStatus != 0)
            #expect(service.logText().contains("not signed by the CA in HERALD_DATABASE_CA_FILE (\(otherCA))"), "\(service.logText())")
        }
    }
}
