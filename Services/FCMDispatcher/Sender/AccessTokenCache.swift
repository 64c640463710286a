import Foundation

/// One OAuth access token, fetched when first needed and refreshed before it expires. However
/// many sends wait for a token, one fetch is in flight. After a 401, `replace(_:)` fetches a
/// new token unless another send already did.
public actor AccessTokenCache {
    public typealias Fetch = @Sendable () async throws -> (token: String, lifetime: TimeInterval)

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private var current: (token: String, refreshAt: Date)?
    private var inFlight: Task<String, any Error>?
    /// Fetches made so far (for tests and metrics).
    public private(set) var fetches = 0

    public init(now: @escaping @Sendable () -> Date = Date.init, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.now = now
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
        if let inFlight { return try await inFlight.value }
        let task = Task { [fetch, now] () throws -> (String, Date) in
            let fetchedAt = now()
            let (token, lifetime) = try await fetch()
            // Refresh well before expiry: 5 minutes early, or halfway for short lifetimes.
            return (token, fetchedAt.addingTimeInterval(max(lifetime - 300, lifetime / 2)))
        }
        let shared = Task { try await task.value.0 }
        inFlight = shared
        fetches += 1
        defer { inFlight = nil }
        let (token, refreshAt) = try await task.value
        current = (token, refreshAt)
        return token
    }
}
