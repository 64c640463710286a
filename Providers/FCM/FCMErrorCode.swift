import DispatchKit

/// FCM's error codes (`FcmError.errorCode` in an answer's details), and the Google status
/// of an answer without one (`error.status`, e.g. `PERMISSION_DENIED`): FCM's table of
/// `FCMAnswer`, with the code as FCM wrote it in `raw`.
public struct FCMErrorCode: ProviderCode, Hashable, ExpressibleByStringLiteral {
    public let raw: String

    public init(_ raw: String) { self.raw = raw }
    public init(stringLiteral raw: String) { self.raw = raw }

    /// The token is no longer valid (the app was uninstalled, the token expired).
    public static let unregistered: FCMErrorCode = "UNREGISTERED"
    /// The token belongs to another sender (Firebase project).
    public static let senderIdMismatch: FCMErrorCode = "SENDER_ID_MISMATCH"
    /// The request is invalid; about `message.token`, the token is.
    public static let invalidArgument: FCMErrorCode = "INVALID_ARGUMENT"
    /// The project's or the device's sending rate was exceeded.
    public static let quotaExceeded: FCMErrorCode = "QUOTA_EXCEEDED"
    /// FCM is overloaded.
    public static let unavailable: FCMErrorCode = "UNAVAILABLE"
    /// FCM failed unexpectedly.
    public static let `internal`: FCMErrorCode = "INTERNAL"
    /// An unknown error.
    public static let unspecifiedError: FCMErrorCode = "UNSPECIFIED_ERROR"
    /// The APNs certificate or Web Push key of the project is invalid or missing.
    public static let thirdPartyAuthError: FCMErrorCode = "THIRD_PARTY_AUTH_ERROR"

    /// The codes worth trying again.
    public static let retryable: Set<FCMErrorCode> = [.quotaExceeded, .unavailable, .internal, .unspecifiedError]
}
