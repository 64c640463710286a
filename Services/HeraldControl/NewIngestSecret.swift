import Crypto
import Foundation
import HeraldModel

/// A new ingest secret for an ingest URL kept in the apps file (`heraldctl ingest new`):
/// `IngestURL.newSecret()`, the URL's path that carries it, and the `ingestURLs` line that
/// holds only its SHA-256.
public struct NewIngestSecret: Sendable {
    public let id: String
    public let source: String
    public let networks: [String]
    public let secret: String
    /// `/v1/ingest/{secret}/<the source's path>`.
    public let path: String

    public init(id: String, source: String, networks: [String], sourcePath: String) {
        secret = IngestURL.newSecret()
        self.id = id
        self.source = source
        self.networks = networks
        path = "/v1/ingest/\(secret)\(sourcePath)"
    }


    public var sha256: String { IngestURL.sha256(secret: secret) }

    /// The entry for the app's `ingestURLs` list.
    public var line: String {
        "- { id: \(id), source: \(source), sha256: \(sha256)\(networks.isEmpty ? "" : ", networks: [\(networks.joined(separator: ", "))]") }"
    }
}
