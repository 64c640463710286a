import Foundation
import HeraldDomain
import ServiceKit

/// An app's `apns` section of the apps file: its token-based credentials (the team, the
/// `.p8` signing key and its id), the app's bundle id as `apns-topic`, and which APNs
/// environment its devices' tokens belong to; the sandbox's endpoint and CA bundle instead
/// of Apple's for development.
public struct APNsSettings: ProviderSettings {
    public static let key = "apns"

    /// Apple's two environments: tokens of development builds are only valid on the
    /// sandbox servers, those of App Store and TestFlight builds on the production ones.
    public enum Environment: String, Codable, Sendable, Hashable {
        case production, development

        /// Apple's server for the environment.
        public var endpoint: String {
            switch self {
            case .production: "https://api.push.apple.com"
            case .development: "https://api.sandbox.push.apple.com"
            }
        }
    }

    /// The 10-character team id, the provider token's `iss`.
    public var teamId: String
    /// The 10-character id of the signing key, the provider token's `kid`.
    public var keyId: String
    /// The `.p8` file Apple's developer account gave: a P-256 private key in PEM.
    public var keyFile: String
    /// The app's bundle id, sent as `apns-topic`.
    public var topic: String
    public var environment: Environment
    /// Overrides the environment's server (e.g. the sandbox).
    public var endpoint: String?
    /// A CA bundle to trust for the endpoint (e.g. the sandbox's).
    public var caFile: String?

    public init(
        teamId: String, keyId: String, keyFile: String, topic: String, environment: Environment = .production,
        endpoint: String? = nil, caFile: String? = nil
    ) {
        self.teamId = teamId
        self.keyId = keyId
        self.keyFile = keyFile
        self.topic = topic
        self.environment = environment
        self.endpoint = endpoint
        self.caFile = caFile
    }

    /// Where the app's pushes go: the override, or the environment's server.
    public var server: String {
        (endpoint ?? environment.endpoint).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    public mutating func validate(resolve: (String) -> String, invalid: (String, String) -> ConfigurationError) throws {
        keyFile = resolve(keyFile)
        caFile = caFile.map(resolve)
        for (name, value) in [("teamId", teamId), ("keyId", keyId), ("topic", topic)] where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw invalid(name, "must not be empty")
        }
        if let endpoint, URL(string: endpoint)?.scheme == nil { throw invalid("endpoint", "\"\(endpoint)\" is not a URL") }
    }
}
