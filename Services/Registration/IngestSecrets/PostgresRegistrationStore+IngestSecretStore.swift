import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as an `IngestSecretStore`: the apps' ingest URLs made at run time. Two replicas
/// adding secrets to one URL take turns (an advisory lock on the app and URL), so the URL
/// never holds more than its two.
extension PostgresRegistrationStore {
    public func addIngestSecret(app: String, id: String, source: String?, networks: [String], sha256: String, now: Date) async throws -> IngestURL {
        let logger = logger
        return try await database.withTransaction { db in
            try await db.run("SELECT pg_advisory_xact_lock(hashtext(\(app)), hashtext(\("ingest:" + id)))", logger: logger)
            var rows = try await Self.ingestRows(try await db.run(
                "SELECT app, urlId, source, networks, sha256, createdAt FROM ingestSecrets WHERE app = \(app) AND urlId = \(id)", logger: logger))
            let source = try IngestSecretRows.check(id: id, source: source, sha256: sha256, existing: rows)
            let kept = rows.first?.networks ?? networks
            try await db.run("""
                INSERT INTO ingestSecrets (app, urlId, source, networks, sha256, createdAt)
                VALUES (\(app), \(id), \(source), \(IngestSecretRows.encode(kept)), \(sha256), \(now))
                """, logger: logger)
            rows.append(IngestSecretRows.Row(app: app, id: id, source: source, networks: kept, sha256: sha256, createdAt: now))
            return IngestSecretRows.urls(rows)[0]
        }
    }

    public func revokeIngestSecret(app: String, id: String, fingerprint: String?) async throws -> Int {
        let rows: [PostgresRow]
        if let fingerprint {
            rows = try await database.query(
                "DELETE FROM ingestSecrets WHERE app = \(app) AND urlId = \(id) AND substr(sha256, 1, 8) = \(fingerprint.lowercased()) RETURNING sha256", logger: logger)
        } else {
            rows = try await database.query("DELETE FROM ingestSecrets WHERE app = \(app) AND urlId = \(id) RETURNING sha256", logger: logger)
        }
        return rows.count
    }

    public func ingestURLs(app: String) async throws -> [IngestURL] {
        IngestSecretRows.urls(try Self.ingestRows(try await database.query(
            "SELECT app, urlId, source, networks, sha256, createdAt FROM ingestSecrets WHERE app = \(app)", logger: logger)))
    }

    public func ingestSecrets() async throws -> [IngestSecretEntry] {
        try Self.ingestRows(try await database.query("SELECT app, urlId, source, networks, sha256, createdAt FROM ingestSecrets", logger: logger)).map {
            IngestSecretEntry(app: $0.app, id: $0.id, source: $0.source, networks: $0.networks, sha256: $0.sha256)
        }
    }

    static func ingestRows(_ rows: [PostgresRow]) throws -> [IngestSecretRows.Row] {
        try rows.decode((String, String, String, String, String, Date).self).map { app, id, source, networks, sha256, createdAt in
            IngestSecretRows.Row(app: app, id: id, source: source, networks: IngestSecretRows.decode(networks), sha256: sha256, createdAt: createdAt)
        }
    }
}
