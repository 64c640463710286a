/// What a client token may do on an endpoint (a column of `Endpoint.route`); API keys are
/// governed by their scopes instead.
public enum ClientAccess: String, Sendable, CaseIterable {
    /// Nothing: the endpoint is for servers (events, lists, stats, settings, sponsees).
    case refused
    /// Its own user's resources: the path's `userId` must be the token's `sub`.
    case ownUser
    /// Its own devices, address keys and profile ids: the body's user must be the token's,
    /// and Registration checks that what is already registered is the token's too.
    case ownDevices
}
