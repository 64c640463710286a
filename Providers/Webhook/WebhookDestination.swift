import Foundation
import HeraldDomain
import ServiceKit

/// Where an app's forwards go: its webhook URL, the signer of its `whsec_` secret(s), and
/// whether the URL may reach private networks. Webhook-mode deliveries and type-3 sponsees'
/// deliveries of the app both go here.
public struct WebhookDestination: Sendable {
    public let url: String
    /// The URL's host, without brackets for an IPv6 literal.
    public let host: String
    public let signer: WebhookSigner
    public let allowPrivateNetworks: Bool
    public let caFile: String?

    public init(url: String, signer: WebhookSigner, allowPrivateNetworks: Bool = false, caFile: String? = nil) throws(WebhookSecretError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              var host = parsed.host, !host.isEmpty else {
            throw WebhookSecretError("\"\(url)\" is not an http(s) URL with a host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.url = url
        self.host = host
        self.signer = signer
        self.allowPrivateNetworks = allowPrivateNetworks
        self.caFile = caFile
    }

    /// The destination an app's configuration names, its secret file read; nil when the app
    /// has no webhook URL. Problems are `ConfigurationError`s naming the setting.
    public static func configured(app: String, _ delivery: AppConfiguration.Forwarding) throws -> WebhookDestination? {
        guard let url = delivery.url else { return nil }
        let setting = "apps.\(app).delivery.signingSecretFile"
        guard let file = delivery.signingSecretFile else { throw ConfigurationError(.invalidValue, setting: setting, "a webhook needs a signing secret file") }
        return try reading(url: url, secretFile: file, setting: setting, allowPrivateNetworks: delivery.allowPrivateNetworks, caFile: delivery.caFile)
    }

    /// The app's callback endpoint (`callbacks`), its secret file read; nil when it has none.
    public static func configured(app: String, _ callbacks: AppConfiguration.Callbacks?) throws -> WebhookDestination? {
        guard let callbacks else { return nil }
        return try reading(
            url: callbacks.url, secretFile: callbacks.signingSecretFile, setting: "apps.\(app).callbacks.signingSecretFile",
            allowPrivateNetworks: callbacks.allowPrivateNetworks, caFile: callbacks.caFile)
    }

    private static func reading(url: String, secretFile file: String, setting: String, allowPrivateNetworks: Bool, caFile: String?) throws -> WebhookDestination {
        let secrets = try SecretFile.text(file, setting: setting).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        do {
            return try WebhookDestination(url: url, signer: try WebhookSigner(secrets: secrets), allowPrivateNetworks: allowPrivateNetworks, caFile: caFile)
        } catch {
            throw ConfigurationError(.invalidFile, setting: setting, "\(file): \(error.reason)")
        }
    }
}
