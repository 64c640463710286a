import Foundation
import HeraldModel
import ServiceKit

/// The apps' ingest URLs made at run time (`IngestURL`): only each secret's SHA-256, with its
/// URL's id, source and sender networks. The gateways read them all (`ingestSecrets`) and match
/// requests against them; the apps file's own ingest URLs never reach the store.
public protocol IngestSecretStore: Sendable {
    /// With `source`, makes the URL `id` for that source (with `networks`) and its first
    /// secret; 409 when the id is taken. Without, adds a second secret to the existing URL
    /// (rotation), which keeps its source and networks; 404 for no such URL, 409 for a third.
    func addIngestSecret(app: String, id: String, source: String?, networks: [String], sha256: String, now: Date) async throws -> IngestURL
    /// Removes one secret of the URL (by fingerprint) or, without one, the whole URL; answers
    /// how many secrets went.
    func revokeIngestSecret(app: String, id: String, fingerprint: String?) async throws -> Int
    /// The app's ingest URLs, by id.
    func ingestURLs(app: String) async throws -> [IngestURL]
    /// Every app's secrets.
    func ingestSecrets() async throws -> [IngestSecretEntry]
}

/// What both stores share: the rows of an ingest URL and the checks of a new secret.
enum IngestSecretRows {
    /// One stored secret.
    struct Row: Sendable {
        var app: String
        var id: String
        var source: String
        var networks: [String]
        var sha256: String
        var createdAt: Date
    }

    /// The source of the new secret for URL `id` that holds `existing`, or why it is refused:
    /// a new URL whose id is taken, a rotation of no URL, or a third secret.
    static func check(id: String, source: String?, sha256: String, existing: [Row]) throws -> String {
        guard let first = existing.first else {
            guard let source else { throw CommandError(code: "ingest-url-not-found", detail: "no ingest URL \(id) made at run time to rotate", status: 404) }
            return source
        }
        guard source == nil else {
            throw CommandError(code: "ingest-url-conflict", detail: "ingest URL \(id) exists: rotate its secret (POST …/ingest-urls/\(id)/secrets) or give another id", status: 409)
        }
        guard existing.count < IngestURL.secretsAtOnce else {
            throw CommandError(
                code: "ingest-url-conflict",
                detail: "ingest URL \(id) has \(existing.count) secrets already, the most at once: revoke the old one (DELETE …/ingest-urls/\(id)/secrets/{fingerprint}) first",
                status: 409)
        }
        guard !existing.contains(where: { $0.sha256 == sha256 }) else {
            throw CommandError(code: "ingest-url-conflict", detail: "ingest URL \(id) has this secret already", status: 409)
        }
        return first.source
    }

    /// The URLs the rows make, by app and id, each with its secrets oldest first.
    static func urls(_ rows: [Row]) -> [IngestURL] {
        let grouped = Dictionary(grouping: rows) { "\($0.app)\u{0}\($0.id)" }
        return grouped.keys.sorted().compactMap { key in
            guard let secrets = grouped[key]?.sorted(by: { ($0.createdAt, $0.sha256) < ($1.createdAt, $1.sha256) }), let first = secrets.first else { return nil }
            return IngestURL(
                id: first.id, source: first.source, networks: first.networks,
                secrets: secrets.map { IngestURL.Secret(fingerprint: IngestURL.fingerprint(sha256: $0.sha256), createdAt: $0.createdAt, origin: "api") })
        }
    }

    static func encode(_ networks: [String]) -> String { networks.joined(separator: ",") }
    static func decode(_ networks: String) -> [String] { networks.split(separator: ",").map(String.init) }
}
