import Crypto
import Foundation
import HeraldDomain
import ServiceKit

/// An app's `webpush` section of the apps file: its VAPID key (RFC 8292; its public key is
/// the `applicationServerKey` browsers subscribe with), the `sub` of its VAPID JWTs, and,
/// for a private push service (the sandbox), the CA bundle to trust and whether private
/// addresses may be reached.
public struct WebPushSettings: ProviderSettings {
    public static let key = "webpush"

    /// A P-256 private key in PEM.
    public var vapidPrivateKeyFile: String
    /// `mailto:` or `https:`: who the push service may contact about this sender.
    public var subject: String
    public var caFile: String?
    public var allowPrivateNetworks: Bool?

    public init(vapidPrivateKeyFile: String, subject: String, caFile: String? = nil, allowPrivateNetworks: Bool? = nil) {
        self.vapidPrivateKeyFile = vapidPrivateKeyFile
        self.subject = subject
        self.caFile = caFile
        self.allowPrivateNetworks = allowPrivateNetworks
    }

    public mutating func validate(resolve: (String) -> String, invalid: (String, String) -> ConfigurationError) throws {
        vapidPrivateKeyFile = resolve(vapidPrivateKeyFile)
        caFile = caFile.map(resolve)
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
            throw invalid("subject", "must be a mailto: or https: URI (RFC 8292's sub), got \"\(subject)\"")
        }
        // The key file is read where it is used (herald-webpush at start, the gateway for the
        // public key), as every provider's credentials are: other services need not see it.
    }
}
