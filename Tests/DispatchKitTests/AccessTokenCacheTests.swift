import DispatchKit
import Foundation
import Synchronization
import Testing

/// A manual clock for the cache tests.
final class ManualClock: Sendable {
    private let instant = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { instant.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

@Suite("The access-token cache")
struct AccessTokenCacheTests {
    @Test func aTokenIsReusedUntilShortlyBeforeItExpiresThenRefreshed() async throws {
        let clock = ManualClock()
        let counter = Mutex(0)
        let cache = AccessTokenCache(now: { clock.now }) {
            let n = counter.withLock { $0 += 1; return $0 }
            return AccessToken(token: "token-\(n)", lifetime: 3600)
        }
        #expect(try await cache.token() == "token-1")
        clock.advance(3299)
        #expect(try await cache.token() == "token-1")
        clock.advance(2)
        #expect(try await cache.token() == "token-2", "refreshed five minutes before expiry")
    }

    @Test func aShortLivedTokenIsRefreshedHalfwayThrough() async throws {
        let clock = ManualClock()
        let counter = Mutex(0)
        let cache = AccessTokenCache(now: { clock.now }) {
            let n = counter.withLock { $0 += 1; return $0 }
            return AccessToken(token: "token-\(n)", lifetime: 60)
        }
        #expect(try await cache.token() == "token-1")
        clock.advance(29)
        #expect(try await cache.token() == "token-1")
        clock.advance(2)
        #expect(try await cache.token() == "token-2")
    }

    @Test func replacingAStaleTokenFetchesOnceHoweverManyAsk() async throws {
        let counter = Mutex(0)
        let cache = AccessTokenCache {
            let n = counter.withLock { $0 += 1; return $0 }
            try await Task.sleep(for: .milliseconds(50))
            return AccessToken(token: "token-\(n)", lifetime: 3600)
        }
        let stale = try await cache.token()
        let replacements = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await cache.replace(stale) } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(replacements == ["token-2"])
        #expect(await cache.fetches == 2)
    }

    @Test func aFailedFetchIsReportedAndTheNextCallTriesAgain() async throws {
        let counter = Mutex(0)
        struct Refused: Error {}
        let cache = AccessTokenCache {
            let n = counter.withLock { $0 += 1; return $0 }
            if n == 1 { throw Refused() }
            return AccessToken(token: "token-\(n)", lifetime: 3600)
        }
        await #expect(throws: Refused.self) { _ = try await cache.token() }
        #expect(try await cache.token() == "token-2")
    }
}
