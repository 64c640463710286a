import DispatchKit
import Foundation

/// An app's provider token, made when first needed and reused: Apple refuses one older
/// than an hour (`ExpiredProviderToken`) and one renewed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so it is renewed at 55 minutes. After APNs refused it
/// (`ExpiredProviderToken`, `InvalidProviderToken`), `AuthorizedSender` renews it once and
/// retries, as for an OAuth access token.
public enum APNsProviderToken {
    /// How long a token is used: the cache renews it 5 minutes before an hour.
    public static let lifetime: TimeInterval = 3600

    /// A token cache for `key`, signing at the time `now` gives.
    public static func cache(for key: APNsSigningKey, now: @escaping @Sendable () -> Date = Date.init) -> AccessTokenCache {
        AccessTokenCache(now: now) { AccessToken(token: try key.token(issuedAt: now()), lifetime: lifetime) }
    }
}
