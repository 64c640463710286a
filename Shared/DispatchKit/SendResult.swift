import Foundation

/// What a provider's answer to one send means for the delivery. Each dispatcher maps its
/// provider's answers to this; `DispatchStage` turns it into outcomes, revocations and
/// retries the same way for every provider. Codes are typed per provider (`ProviderCode`).
public enum SendResult: Sendable, Hashable {
    /// The provider took the message; its id for it, when it gave one.
    case delivered(providerId: String?)
    /// Worth trying again later (overload, outage, quota); never sooner than `retryAfter`.
    case retry(code: any ProviderCode, reason: String, retryAfter: Duration? = nil)
    /// Will never succeed (a bad message, wrong credentials).
    case failed(code: any ProviderCode, reason: String)
    /// The token is dead: revoke it, unless its device registered again after
    /// `invalidSince` (when the provider says since when it is invalid, as APNs' 410 does;
    /// else after the send).
    case revoked(code: any ProviderCode, reason: String, invalidSince: Date? = nil)
    /// Not sent: its destination is failing (an open `CircuitBreaker`). The request waits in
    /// the broker for `retryAfter`, with no attempt counted and no outcome, then comes back.
    case held(reason: String, retryAfter: Duration)
    /// The provider says the message's time to live is over (Push Kit `80100004`): the
    /// delivery is pointless now, and the registration stays.
    case expired(code: any ProviderCode, reason: String)

    /// Whether the request goes back to the broker to be sent later (retried or held).
    public var waits: Bool {
        switch self {
        case .retry, .held: true
        default: false
        }
    }

    /// The result's code, nil for a delivery and a held send.
    public var code: (any ProviderCode)? {
        switch self {
        case .delivered, .held: nil
        case .retry(let code, _, _), .failed(let code, _), .revoked(let code, _, _), .expired(let code, _): code
        }
    }

    public static func == (a: SendResult, b: SendResult) -> Bool {
        switch (a, b) {
        case (.delivered(let x), .delivered(let y)): x == y
        case (.held(let r, let after), .held(let s, let later)): r == s && after == later
        case (.retry(let c, let r, let after), .retry(let d, let s, let later)): c.isSame(as: d) && r == s && after == later
        case (.revoked(let c, let r, let since), .revoked(let d, let s, let other)):
            c.isSame(as: d) && r == s && since == other
        case (.failed(let c, let r), .failed(let d, let s)), (.expired(let c, let r), .expired(let d, let s)):
            c.isSame(as: d) && r == s
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .delivered(let id): hasher.combine(0); hasher.combine(id)
        case .retry(let code, let reason, let after): hasher.combine(1); hasher.combine(code.raw); hasher.combine(reason); hasher.combine(after)
        case .failed(let code, let reason): hasher.combine(2); hasher.combine(code.raw); hasher.combine(reason)
        case .revoked(let code, let reason, let since): hasher.combine(3); hasher.combine(code.raw); hasher.combine(reason); hasher.combine(since)
        case .expired(let code, let reason): hasher.combine(4); hasher.combine(code.raw); hasher.combine(reason)
        case .held(let reason, let after): hasher.combine(5); hasher.combine(reason); hasher.combine(after)
        }
    }
}
