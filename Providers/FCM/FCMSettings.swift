import Foundation
import HeraldDomain
import ServiceKit

/// An app's `fcm` section of the apps file: its Firebase service account, and where to send
/// instead of Google (the sandbox) with the CA bundle to trust there.
public struct FCMSettings: ProviderSettings {
    public static let key = "fcm"

    public var serviceAccountFile: String
    /// Overrides `https://fcm.googleapis.com` (e.g. the sandbox).
    public var endpoint: String?
    /// A CA bundle to trust for the endpoint (e.g. the sandbox's).
    public var caFile: String?

    public init(serviceAccountFile: String, endpoint: String? = nil, caFile: String? = nil) {
        self.serviceAccountFile = serviceAccountFile
        self.endpoint = endpoint
        self.caFile = caFile
    }

    public mutating func validate(resolve: (String) -> String, invalid: (String, String) -> ConfigurationError) throws {
        serviceAccountFile = resolve(serviceAccountFile)
        caFile = caFile.map(resolve)
        if let endpoint, URL(string: endpoint)?.scheme == nil { throw invalid("endpoint", "\"\(endpoint)\" is not a URL") }
    }
}
