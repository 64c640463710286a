import HeraldModel

/// Who sent a request: a server with one of the app's API keys, or one of the app's devices
/// with a client token minted for its user.
public enum Caller: Sendable, Hashable {
    case server(keyId: String)
    case client(ClientIdentity)
    /// An app without a credential that proves a device is its own by the device's push
    /// token (`Endpoint.provenByPushToken`).
    case pushTokenHolder

    /// The rate limiter's key bucket: each API key its own; the app's client tokens share one.
    var rateLimitKey: String {
        switch self {
        case .server(let keyId): keyId
        case .client: "clientTokens"
        case .pushTokenHolder: "pushTokens"
        }
    }

    /// The client token's identity, nil for a server.
    var client: ClientIdentity? {
        if case .client(let identity) = self { return identity }
        return nil
    }
}
