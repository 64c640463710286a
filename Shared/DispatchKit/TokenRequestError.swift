/// The token endpoint answered with an error. A 4xx other than 429 refuses the credentials
/// themselves (wrong key or secret, unknown or revoked client, a clock too far off): sending
/// again will not help. Anything else (5xx, 429) may pass.
public struct TokenRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    /// The endpoint's own words (`error_description`, `error`, or the start of the body).
    public var detail: String

    public init(status: Int, detail: String) {
        self.status = status
        self.detail = detail
    }

    public var refusesCredentials: Bool { (400..<500).contains(status) && status != 429 }

    public var description: String { "OAuth token request failed with \(status): \(detail)" }
}
