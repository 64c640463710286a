import Foundation
import HeraldDomain
import ServiceKit

/// An app's `hms` section of the apps file: its Push Kit app and OAuth client, and where to
/// send instead of Huawei (the sandbox) with the CA bundle to trust there.
public struct HMSSettings: ProviderSettings {
    public static let key = "hms"

    public var appId: String
    public var clientId: String
    public var clientSecretFile: String
    public var endpoint: String?
    public var tokenEndpoint: String?
    public var caFile: String?

    public init(appId: String, clientId: String, clientSecretFile: String, endpoint: String? = nil, tokenEndpoint: String? = nil, caFile: String? = nil) {
        self.appId = appId
        self.clientId = clientId
        self.clientSecretFile = clientSecretFile
        self.endpoint = endpoint
        self.tokenEndpoint = tokenEndpoint
        self.caFile = caFile
    }

    public mutating func validate(resolve: (String) -> String, invalid: (String, String) -> ConfigurationError) throws {
        clientSecretFile = resolve(clientSecretFile)
        caFile = caFile.map(resolve)
    }
}
