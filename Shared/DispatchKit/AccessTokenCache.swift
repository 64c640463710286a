import Foundation

/// One OAuth access token, fetched when first needed and refreshed before it expires, however
/// it is fetched (a signed JWT for FCM, client credentials for Push Kit). However many sends
/// wait for a token, one fetch is in flight. After the provider refused a token,
/// `replace(_:)` fetches a new one unless another send already did. When the token endpoint
/// refuses the credentials themselves, that refusal is remembered for `refusalHold`, so a
/// queue of deliveries fails fast instead of hammering the endpoint.
public actor AccessTokenCache {
    public typealias Fetch = @Sendable () async throws -> AccessToken

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private let refusalHold: TimeInterval
    private var current: (token: String, refreshAt: Date)?
    private var refused: (error: TokenRequestError, until: Date)?
    private var inFlight: Task<AccessToken, any Error>?
    /// Fetches made so far (for tests and metrics).
    public private(set) var fetches = 0

    public init(refusalHold: Duration = .seconds(30), now: @escaping @Sendable () -> Date = Date.init, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.now = now
        self.refusalHold = TimeInterval(refusalHold.components.seconds)
    }

    /// A token valid for a while yet.
    public func token() async throws -> String {
        if let current, now() < current.refreshAt { return current.token }
        return try await refresh()
    }

    /// A token other than `stale` (which the provider refused).
    public func replace(_ stale: String) async throws -> String {
        if let current, current.token != stale { return current.token }
        current = nil
        return try await refresh()
    }

    private func refresh() async throws -> String {
        if let refused, now() < refused.until { throw refused.error }
        if let inFlight { return try await inFlight.value.token }
        let task = Task { [fetch] in try await fetch() }
        inFlight = task
        fetches += 1
        defer { inFlight = nil }
        let fetchedAt = now()
        do {
            let token = try await task.value
            // Refresh well before expiry: 5 minutes early, or halfway for short lifetimes.
            current = (token.token, fetchedAt.addingTimeInterval(max(token.lifetime - 300, token.lifetime / 2)))
            refused = nil
            return token.token
        } catch let error as TokenRequestError where error.refusesCredentials {
            refused = (error, now().addingTimeInterval(refusalHold))
            throw error
        }
    }
}

/// An access token and how many seconds it lives.
public struct AccessToken: Sendable, Hashable {
    public var token: String
    public var lifetime: TimeInterval

    public init(token: String, lifetime: TimeInterval) {
        self.token = token
        self.lifetime = lifetime
    }
}
