import HeraldDomain

/// Every credential the gateway takes, from one apps file: the apps' API keys (servers) and
/// their client-token keys (the apps' devices). Replaced whole when the file is read again.
public struct Credentials: Sendable {
    public let keys: APIKeys
    public let clientTokens: ClientTokens

    public init(keys: APIKeys, clientTokens: ClientTokens) {
        self.keys = keys
        self.clientTokens = clientTokens
    }

    /// Reads the keys and secrets the file names; throws when one cannot be read or used.
    public init(apps: AppsConfiguration) throws {
        self.init(keys: try APIKeys(apps: apps), clientTokens: try ClientTokens(apps: apps))
    }

    /// Who `authorization` is on `app`: an API key with `scope`, else a client token (a JWT)
    /// verified for the app. 401 for a missing or unknown credential or a refused token, 403
    /// for a key of another app or without the scope. What a client token may do on the
    /// endpoint is checked by the caller.
    public func authenticate(_ authorization: String?, app: String, scope: AppConfiguration.Scope) throws(GatewayError) -> Caller {
        guard let authorization, let bearer = APIKeys.bearer(authorization) else {
            throw GatewayError(401, "Unauthorized", "an Authorization: Bearer <API key or client token> header is required")
        }
        if let keyId = try keys.authorize(digest: bearer.digest, app: app, scope: scope) { return .server(keyId: keyId) }
        // An API key has no dots; a JWT has two.
        guard bearer.credential.utf8.contains(UInt8(ascii: ".")) else { throw GatewayError(401, "Unauthorized", "unknown API key") }
        return .client(try clientTokens.verify(bearer.credential, digest: bearer.digest, app: app))
    }
}
