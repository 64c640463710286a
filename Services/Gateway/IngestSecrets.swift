import Crypto
import Foundation
import HeraldDomain
import HeraldModel
import HTTPTransport
import Synchronization

/// The ingest URLs the gateway takes events at (`POST /v1/ingest/{secret}/<source path>`), for
/// upstreams that can be given a URL but send no `Authorization` header (Verity, Smart ID):
/// those of the apps file (`ingestURLs`, by SHA-256) and those made at run time, which
/// Registration keeps and `IngestSecretRefresher` reads again every few seconds. A request's
/// secret is hashed and compared with every digest in constant time, as API keys are; the
/// secret itself is never kept, logged or shown past its making (`masked`).
public final class IngestSecrets: Sendable {
    /// One secret of one URL.
    struct Entry: Sendable {
        var app: String
        var id: String
        var source: String
        var networks: [NetworkCIDR]
        /// Whether a network it names could not be read: then it takes no request at all, rather
        /// than one from anywhere.
        var unreadableNetworks: Bool
        var digest: [UInt8]
    }

    /// What a request's secret opens.
    enum Match: Sendable {
        case url(Entry)
        /// No secret matches.
        case unknown
        /// None of the file's matches, and the stored ones were never read yet.
        case notLoaded
    }

    /// The file's entries, the stored ones (nil until first read), and how many changes this
    /// gateway made to the stored ones itself (a read begun before one of them is stale).
    private let state: Mutex<(file: [Entry], stored: [Entry]?, localChanges: UInt64)>

    public init(apps: AppsConfiguration) {
        state = Mutex((Self.fileEntries(apps), nil, 0))
    }

    /// The apps file's ingest URLs, after it was read again.
    public func update(apps: AppsConfiguration) {
        let entries = Self.fileEntries(apps)
        state.withLock { $0.file = entries }
    }

    /// Marks the start of a read of the stored secrets: pass the answer to `replaceStored`.
    func readBegins() -> UInt64 {
        state.withLock { $0.localChanges }
    }

    /// The stored secrets, as Registration answered them. With `since` (`readBegins()`), a
    /// read that began before this gateway made or revoked a secret itself is dropped: its
    /// answer may not hold that change yet, and the next read will.
    public func replaceStored(_ secrets: [IngestSecretEntry], since: UInt64? = nil) {
        let entries = secrets.compactMap(Self.entry)
        state.withLock { current in
            guard since == nil || since == current.localChanges else { return }
            current.stored = entries
        }
    }

    /// A secret this gateway made just now: taken at once, before the next read.
    func insertStored(_ secret: IngestSecretEntry) {
        guard let entry = Self.entry(secret) else { return }
        state.withLock {
            $0.stored = ($0.stored ?? []) + [entry]
            $0.localChanges += 1
        }
    }

    /// A URL (or one of its secrets, by fingerprint) this gateway revoked just now: refused at once.
    func removeStored(app: String, id: String, fingerprint: String?) {
        state.withLock { current in
            current.localChanges += 1
            current.stored = current.stored?.filter { entry in
                !(entry.app == app && entry.id == id && (fingerprint.map { Hex.encode(entry.digest).hasPrefix($0.lowercased()) } ?? true))
            }
        }
    }

    /// The URL `secret` opens; every digest is compared, in constant time each.
    func match(secret: Substring) -> Match {
        var hash = SHA256()
        hash.update(data: Data(secret.utf8))
        let digest = Array(hash.finalize())
        let (file, stored) = state.withLock { current in (current.file, current.stored) }
        var found: Entry?
        for entry in file + (stored ?? []) where APIKeys.constantTimeEqual(entry.digest, digest) { found = entry }
        if let found { return .url(found) }
        return stored == nil ? .notLoaded : .unknown
    }

    /// The app's ingest URLs of the apps file, as the API lists them.
    func fileURLs(app: String) -> [IngestURL] {
        let entries = state.withLock { $0.file }.filter { $0.app == app }
        return Dictionary(grouping: entries, by: \.id).keys.sorted().compactMap { id in
            let secrets = entries.filter { $0.id == id }
            guard let first = secrets.first else { return nil }
            return IngestURL(
                id: id, source: first.source, networks: first.networks.map(\.description),
                secrets: secrets.map { IngestURL.Secret(fingerprint: String(Hex.encode($0.digest).prefix(8)), createdAt: Date(timeIntervalSince1970: 0), origin: "file") })
        }
    }

    /// The path under which a URL of `source` takes its endpoint's requests (`/v1/ingest/{secret}/evernym/notify`).
    public static let pathPrefix = "/v1/ingest/"

    /// A secret as logs, traces and errors may show it: its first four characters and last
    /// four, nothing between.
    public static func masked(_ secret: some StringProtocol) -> String {
        secret.count > 12 ? "\(secret.prefix(4))****\(secret.suffix(4))" : "****"
    }

    /// `path` with the secret of an ingest path masked; any other path as it is.
    public static func maskedPath(_ path: String) -> String {
        guard path.hasPrefix(pathPrefix) else { return path }
        let rest = path.dropFirst(pathPrefix.count)
        let secret = rest.prefix { $0 != "/" }
        return pathPrefix + masked(secret) + rest.dropFirst(secret.count)
    }

    static func fileEntries(_ apps: AppsConfiguration) -> [Entry] {
        apps.apps.sorted { $0.key < $1.key }.flatMap { app, configuration in
            configuration.ingestURLs.compactMap { url in
                entry(IngestSecretEntry(app: app, id: url.id, source: url.source, networks: url.networks ?? [], sha256: url.sha256))
            }
        }
    }

    static func entry(_ secret: IngestSecretEntry) -> Entry? {
        guard let digest = Hex.decode(secret.sha256), digest.count == 32 else { return nil }
        let networks = secret.networks.compactMap(NetworkCIDR.init)
        return Entry(
            app: secret.app, id: secret.id, source: secret.source, networks: networks, unreadableNetworks: networks.count != secret.networks.count,
            digest: digest)
    }
}
