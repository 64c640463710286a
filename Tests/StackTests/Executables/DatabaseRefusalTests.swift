import Foundation
import HeraldTestSupport
import Testing

/// A service whose PostgreSQL refuses it for good (a wrong password, a database that does not
/// exist) stops at start and says why, with the server's SQLSTATE, instead of retrying for
/// the half minute it waits for a server that is not up yet.
extension ServiceProcesses {
    @Suite("A service PostgreSQL refuses", .needs(.database))
    struct DatabaseRefusalTests {
        /// The test server's URL with `change` applied.
        static func url(_ change: (inout URLComponents) -> Void) throws -> String {
            var components = try #require(URLComponents(string: TestDatabase.url ?? "postgres://herald:herald@127.0.0.1:54329/herald"))
            change(&components)
            return try #require(components.string)
        }

        static func expectStopsSaying(_ databaseURL: String, _ expected: String) async throws {
            let service = try ServiceProcess("herald-registration", environment: ["HERALD_DATABASE_URL": databaseURL])
            defer { service.discard() }
            // A server that does not answer is retried for 30 s after the start; a refusal
            // stops the service at once, so 25 s leaves a loaded machine room to start it.
            try await eventually(timeout: .seconds(25), "herald-registration to exit") { !service.process.isRunning }
            #expect(service.process.terminationStatus != 0)
            #expect(service.logText().contains(expected), "\(service.logText())")
            #expect(!service.logText().contains("Generic description"), "\(service.logText())")
        }

        @Test("a wrong password stops the service at start, saying so")
        func wrongPassword() async throws {
            let user = try #require(URLComponents(string: TestDatabase.url ?? "")?.user)
            try await Self.expectStopsSaying(
                try Self.url { $0.password = "not-the-password" },
                "password authentication failed for user \"\(user)\" (SQLSTATE 28P01)")
        }

        @Test("a database that does not exist stops the service at start, saying so")
        func missingDatabase() async throws {
            try await Self.expectStopsSaying(
                try Self.url { $0.path = "/herald_no_such_database" },
                "database \"herald_no_such_database\" does not exist (SQLSTATE 3D000)")
        }
    }
}
