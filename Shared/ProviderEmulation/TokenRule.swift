import Foundation

/// What a device token asks the sandbox to do, read from its prefixes, so tests and demos
/// can provoke every provider answer. Prefixes combine, e.g. `slow-200-unavailable-2-abc`.
///
/// | prefix | effect |
/// |---|---|
/// | `unregistered-` | the token is dead (FCM 404 UNREGISTERED; HMS illegal token) |
/// | `invalid-` | the token is malformed (FCM 400 INVALID_ARGUMENT; HMS illegal token) |
/// | `mismatch-` | the token belongs to another sender (FCM 403 SENDER_ID_MISMATCH) |
/// | `thirdparty-` | APNs/web-push credentials are wrong (FCM 401 THIRD_PARTY_AUTH_ERROR) |
/// | `unavailable-N-` | the first N sends fail with 503 and `Retry-After`, later ones succeed (no N: always) |
/// | `internal-N-` | the first N sends fail with 500 INTERNAL (no N: always) |
/// | `quota-N-` | the first N sends fail with 429 QUOTA_EXCEEDED and `Retry-After` (no N: always) |
/// | `unspecified-` | FCM 500 UNSPECIFIED_ERROR |
/// | `ttlexpired-` | the message's time to live is over (HMS 80100004; FCM 400 INVALID_ARGUMENT) |
/// | `authfail-N-` | the provider's OAuth service fails (HMS 500 80600003; FCM 500 INTERNAL), N times or always |
/// | `toomany-N-` | HMS: a request listing this token among more than N tokens fails with 80300010 (no N: more than 1); FCM: no effect |
/// | `slow-MS-` | answer after MS milliseconds |
/// | `after-S-` | `Retry-After: S` on retryable failures (default 1) |
/// | `since-S-` | APNs: the 410's `timestamp` is S (Unix seconds) instead of the time of the answer |
///
/// APNs tokens are hex: there the rule is the text the token's bytes spell
/// (`APNsEmulator.token(rule:)`).
public struct TokenRule: Sendable, Hashable {
    public enum Failure: Sendable, Hashable {
        case unregistered, invalid, senderMismatch, thirdPartyAuth, unspecified, ttlExpired
        case unavailable(times: Int?)
        case authServiceFailed(times: Int?)
        case `internal`(times: Int?)
        case quota(times: Int?)
        /// Push Kit refuses a request with more than `limit` tokens (80300010).
        case tooMany(limit: Int)
    }

    public var failure: Failure?
    public var delayMilliseconds: Int = 0
    public var retryAfterSeconds: Int = 1
    /// For APNs' 410: since when the token is invalid.
    public var invalidSince: Date?

    public init(token: String) {
        var rest = Substring(token)
        /// Consumes `prefix` and returns true.
        func take(_ prefix: String) -> Bool {
            guard rest.hasPrefix(prefix) else { return false }
            rest = rest.dropFirst(prefix.count)
            return true
        }
        /// Consumes `prefix` + digits + "-" and returns the number; nil (consuming nothing) otherwise.
        func takeNumber(after prefix: String) -> Int? {
            guard rest.hasPrefix(prefix) else { return nil }
            let afterPrefix = rest.dropFirst(prefix.count)
            let digits = afterPrefix.prefix(while: \.isNumber)
            guard !digits.isEmpty, afterPrefix.dropFirst(digits.count).first == "-", let value = Int(digits) else { return nil }
            rest = afterPrefix.dropFirst(digits.count + 1)
            return value
        }
        /// A failure prefix with an optional count: `name-N-` or `name-`.
        func takeCounted(_ name: String) -> Int?? {
            if let times = takeNumber(after: name + "-") { return .some(times) }
            return take(name + "-") ? .some(nil) : .none
        }
        while true {
            if take("unregistered-") { failure = .unregistered }
            else if take("invalid-") { failure = .invalid }
            else if take("mismatch-") { failure = .senderMismatch }
            else if take("thirdparty-") { failure = .thirdPartyAuth }
            else if take("unspecified-") { failure = .unspecified }
            else if take("ttlexpired-") { failure = .ttlExpired }
            else if case .some(let times) = takeCounted("authfail") { failure = .authServiceFailed(times: times) }
            else if case .some(let times) = takeCounted("unavailable") { failure = .unavailable(times: times) }
            else if case .some(let times) = takeCounted("internal") { failure = .internal(times: times) }
            else if case .some(let times) = takeCounted("quota") { failure = .quota(times: times) }
            else if case .some(let limit) = takeCounted("toomany") { failure = .tooMany(limit: limit ?? 1) }
            else if let ms = takeNumber(after: "slow-") { delayMilliseconds = ms }
            else if let seconds = takeNumber(after: "after-") { retryAfterSeconds = seconds }
            else if let seconds = takeNumber(after: "since-") { invalidSince = Date(timeIntervalSince1970: TimeInterval(seconds)) }
            else { break }
        }
    }

    /// For failures that stop after N sends: N; nil for failures that always happen.
    public var limitedTimes: Int? {
        switch failure {
        case .unavailable(let times), .internal(let times), .quota(let times), .authServiceFailed(let times): times
        default: nil
        }
    }
}

extension TokenRule.Failure {
    /// Whether FCM answers with this failure: FCM sends one token per request, so a limit on
    /// a request's token count never applies.
    public var appliesToFCM: Bool {
        if case .tooMany = self { return false }
        return true
    }
}
