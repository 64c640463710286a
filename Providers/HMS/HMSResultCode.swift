import DispatchKit

/// Push Kit's result codes (the `code` of an answer's JSON body): Push Kit's table of
/// `HMSAnswer`, with the code as Push Kit wrote it in `raw`.
public struct HMSResultCode: ProviderCode, Hashable, ExpressibleByStringLiteral {
    public let raw: String

    public init(_ raw: String) { self.raw = raw }
    public init(stringLiteral raw: String) { self.raw = raw }

    public static let success: HMSResultCode = "80000000"
    /// Some tokens were refused: those listed in the message.
    public static let partialSuccess: HMSResultCode = "80100000"
    /// Every token of the request is invalid.
    public static let allTokensInvalid: HMSResultCode = "80300007"
    /// More tokens than one request takes.
    public static let tooManyTokens: HMSResultCode = "80300010"
    /// The message's time to live is over.
    public static let ttlExpired: HMSResultCode = "80100004"
    /// The access token was refused.
    public static let authenticationError: HMSResultCode = "80200001"
    /// The access token expired.
    public static let accessTokenExpired: HMSResultCode = "80200003"
    /// Push Kit's internal error.
    public static let internalError: HMSResultCode = "81000001"
    /// The OAuth service failed.
    public static let oauthServiceError: HMSResultCode = "80600003"

    /// Codes worth retrying whatever the HTTP status.
    public static let retryable: Set<HMSResultCode> = [.internalError, .oauthServiceError]
}
