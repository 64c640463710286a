import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as an `IngestSecretStore`: the apps' ingest URLs made at run time.
extension SQLiteRegistrationStore {
    public func addIngestSecret(app: String, id: String, source: String?, networks: [String], sha256: String, now: Date) async throws -> IngestURL {
        try await database.durableWrite { db in
            var rows = try Self.ingestRows(db, where: "app = ? AND urlId = ?", [app, id])
            let source = try IngestSecretRows.check(id: id, source: source, sha256: sha256, existing: rows)
            let kept = rows.first?.networks ?? networks
            try db.execute(sql: """
                INSERT INTO ingestSecrets (app, urlId, source, networks, sha256, createdAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [app, id, source, IngestSecretRows.encode(kept), sha256, now])
            rows.append(IngestSecretRows.Row(app: app, id: id, source: source, networks: kept, sha256: sha256, createdAt: now))
            return IngestSecretRows.urls(rows)[0]
        }
    }

    public func revokeIngestSecret(app: String, id: String, fingerprint: String?) async throws -> Int {
        try await database.durableWrite { db in
            if let fingerprint {
                try db.execute(sql: "DELETE FROM ingestSecrets WHERE app = ? AND urlId = ? AND substr(sha256, 1, 8) = ?", arguments: [app, id, fingerprint.lowercased()])
            } else {
                try db.execute(sql: "DELETE FROM ingestSecrets WHERE app = ? AND urlId = ?", arguments: [app, id])
            }
            return db.changesCount
        }
    }

    public func ingestURLs(app: String) async throws -> [IngestURL] {
        try await database.read { db in IngestSecretRows.urls(try Self.ingestRows(db, where: "app = ?", [app])) }
    }

    public func ingestSecrets() async throws -> [IngestSecretEntry] {
        try await database.read { db in
            try Self.ingestRows(db, where: "1 = 1", []).map { IngestSecretEntry(app: $0.app, id: $0.id, source: $0.source, networks: $0.networks, sha256: $0.sha256) }
        }
    }

    static func ingestRows(_ db: Database, where condition: String, _ arguments: [String]) throws -> [IngestSecretRows.Row] {
        try Row.fetchAll(db, sql: "SELECT app, urlId, source, networks, sha256, createdAt FROM ingestSecrets WHERE \(condition)", arguments: StatementArguments(arguments)).map {
            IngestSecretRows.Row(app: $0["app"], id: $0["urlId"], source: $0["source"], networks: IngestSecretRows.decode($0["networks"]), sha256: $0["sha256"], createdAt: $0["createdAt"])
        }
    }
}
