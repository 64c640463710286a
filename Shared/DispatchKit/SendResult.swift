/// What a provider's answer to one send means for the delivery. Each dispatcher maps its
/// provider's answers to this; `DispatchStage` turns it into outcomes, revocations and
/// retries the same way for every provider.
public enum SendResult: Sendable, Hashable {
    /// The provider took the message; its id for it, when it gave one.
    case delivered(providerId: String?)
    /// Worth trying again later (overload, outage, quota); never sooner than `retryAfter`.
    case retry(code: String, reason: String, retryAfter: Duration? = nil)
    /// Will never succeed (a bad message, wrong credentials).
    case failed(code: String, reason: String)
    /// The token is dead: revoke it.
    case revoked(code: String, reason: String)
    /// The provider says the message's time to live is over (Push Kit `80100004`): the
    /// delivery is pointless now, and the registration stays.
    case expired(code: String, reason: String)
}
