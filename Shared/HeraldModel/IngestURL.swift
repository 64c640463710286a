import Crypto
import Foundation

/// An ingest URL as Registration keeps it and the gateway lists it: a per-app, per-source URL
/// whose path carries a secret (`POST /v1/ingest/{secret}/evernym/notify`), for an upstream
/// that can be given a URL but sends no `Authorization` header (Verity, Smart ID). Only the
/// SHA-256 of each secret is kept; a secret is shown once, when it is made. Up to two
/// secrets are valid at once, so a secret can be rotated without a moment of refusals.
public struct IngestURL: Codable, Sendable, Hashable {
    public var id: String
    /// The source whose endpoint it takes (`SourceRegistry.ingestSources`: the first segment of its path).
    public var source: String
    /// The sender networks it takes requests from (CIDRs); empty: any.
    public var networks: [String]
    public var secrets: [Secret]

    public init(id: String, source: String, networks: [String] = [], secrets: [Secret] = []) {
        self.id = id
        self.source = source
        self.networks = networks
        self.secrets = secrets
    }

    /// One of the URL's secrets, named by its fingerprint (the first 8 hex digits of its
    /// SHA-256), never by its value.
    public struct Secret: Codable, Sendable, Hashable {
        public var fingerprint: String
        public var createdAt: Date
        /// "file" for a secret held in the apps file (read-only here), else "api".
        public var origin: String?

        public init(fingerprint: String, createdAt: Date, origin: String? = nil) {
            self.fingerprint = fingerprint
            self.createdAt = createdAt
            self.origin = origin
        }
    }


    /// The most secrets one URL holds at once (the current one and the next, while rotating).
    public static let secretsAtOnce = 2

    /// The fingerprint of a secret whose SHA-256 is `sha256` (hex).
    public static func fingerprint(sha256: String) -> String { String(sha256.lowercased().prefix(8)) }

    /// What every secret Herald makes begins with.
    public static let secretPrefix = "hgi_"

    /// A new secret: 32 bytes from the system's CSPRNG (256 bits), base64url, after `hgi_`.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return secretPrefix + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The SHA-256 of `secret` in hex, as the apps file and the store hold it.
    public static func sha256(secret: String) -> String {
        Hex.encode(SHA256.hash(data: Data(secret.utf8)))
    }
}

/// One ingest secret as the gateways match requests against it: its app, URL, source,
/// networks, and its SHA-256 in hex (`RegistrationCommand.ingestSecrets`).
public struct IngestSecretEntry: Codable, Sendable, Hashable {
    public var app: String
    public var id: String
    public var source: String
    public var networks: [String]
    public var sha256: String

    public init(app: String, id: String, source: String, networks: [String], sha256: String) {
        self.app = app
        self.id = id
        self.source = source
        self.networks = networks
        self.sha256 = sha256
    }
}
