/// The result codes a dispatcher gives on its own, beside the provider's codes: they appear
/// as `providerCode` in outcomes and as the `code` of a `SendResult`.
public enum DispatchCode: String, Sendable, CaseIterable {
    /// The delivery's app has no settings for this provider.
    case notConfigured = "NOT_CONFIGURED"
    /// No HTTP answer: connection, TLS, timeout, or the transport is closed.
    case transport = "TRANSPORT"
    /// The token endpoint failed for a reason that may pass (unreachable, 5xx, overloaded).
    case oauth = "OAUTH"
    /// The token endpoint refused the app's credentials: wrong key or secret, revoked client.
    case credentials = "CREDENTIALS"
    /// The provider refused a freshly issued access token as well.
    case unauthenticated = "UNAUTHENTICATED"
    /// The request could not be built from the delivery.
    case encoding = "ENCODING"
    /// The provider's answer could not be read.
    case unreadableAnswer = "UNREADABLE_ANSWER"
    /// A webhook host resolves to an address the server-side request forgery guard refuses
    /// (loopback, private, link-local, …) and the app does not allow private networks.
    case addressRefused = "ADDRESS_REFUSED"
    /// A webhook destination already has as many forwards in flight and waiting as it may:
    /// the delivery goes to a delay tier instead of holding the consumer.
    case destinationBusy = "DESTINATION_BUSY"
    /// The endpoint answered with a redirect, which is never followed.
    case redirect = "REDIRECT"
}

extension SendResult {
    /// A permanent failure with one of the dispatcher's own codes.
    public static func failed(_ code: DispatchCode, _ reason: String) -> SendResult {
        .failed(code: code, reason: reason)
    }

    /// A failure worth retrying, with one of the dispatcher's own codes.
    public static func retry(_ code: DispatchCode, _ reason: String, retryAfter: Duration? = nil) -> SendResult {
        .retry(code: code, reason: reason, retryAfter: retryAfter)
    }
}
