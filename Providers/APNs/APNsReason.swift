import DispatchKit

/// APNs' error reasons (the `reason` of an answer's JSON body), as Apple's table names
/// them: the codes of `APNsAnswer`, with the reason as APNs wrote it in `raw`.
public struct APNsReason: ProviderCode, Hashable, ExpressibleByStringLiteral {
    public let raw: String

    public init(_ raw: String) { self.raw = raw }
    public init(stringLiteral raw: String) { self.raw = raw }

    // 400
    public static let badCollapseId: APNsReason = "BadCollapseId"
    public static let badDeviceToken: APNsReason = "BadDeviceToken"
    public static let badExpirationDate: APNsReason = "BadExpirationDate"
    public static let badMessageId: APNsReason = "BadMessageId"
    public static let badPriority: APNsReason = "BadPriority"
    public static let badTopic: APNsReason = "BadTopic"
    public static let deviceTokenNotForTopic: APNsReason = "DeviceTokenNotForTopic"
    public static let duplicateHeaders: APNsReason = "DuplicateHeaders"
    public static let idleTimeout: APNsReason = "IdleTimeout"
    public static let invalidPushType: APNsReason = "InvalidPushType"
    public static let missingDeviceToken: APNsReason = "MissingDeviceToken"
    public static let missingTopic: APNsReason = "MissingTopic"
    public static let payloadEmpty: APNsReason = "PayloadEmpty"
    public static let topicDisallowed: APNsReason = "TopicDisallowed"
    // 403
    public static let badCertificate: APNsReason = "BadCertificate"
    public static let badCertificateEnvironment: APNsReason = "BadCertificateEnvironment"
    public static let expiredProviderToken: APNsReason = "ExpiredProviderToken"
    public static let forbidden: APNsReason = "Forbidden"
    public static let invalidProviderToken: APNsReason = "InvalidProviderToken"
    public static let missingProviderToken: APNsReason = "MissingProviderToken"
    // 404, 405
    public static let badPath: APNsReason = "BadPath"
    public static let methodNotAllowed: APNsReason = "MethodNotAllowed"
    // 410
    public static let expiredToken: APNsReason = "ExpiredToken"
    public static let unregistered: APNsReason = "Unregistered"
    // 413
    public static let payloadTooLarge: APNsReason = "PayloadTooLarge"
    // 429
    public static let tooManyProviderTokenUpdates: APNsReason = "TooManyProviderTokenUpdates"
    public static let tooManyRequests: APNsReason = "TooManyRequests"
    // 500, 503
    public static let internalServerError: APNsReason = "InternalServerError"
    public static let serviceUnavailable: APNsReason = "ServiceUnavailable"
    public static let shutdown: APNsReason = "Shutdown"

    /// The provider token was refused: renewed once, then the send repeated.
    public static let tokenRefusals: Set<APNsReason> = [.expiredProviderToken, .invalidProviderToken, .missingProviderToken]
    /// The app's settings are wrong (its topic, key or environment): every push of the app
    /// fails the same way until an operator mends them.
    public static let configuration: Set<APNsReason> = [
        .deviceTokenNotForTopic, .topicDisallowed, .badTopic, .missingTopic, .forbidden, .badCertificate,
        .badCertificateEnvironment, .invalidProviderToken,
    ]
    /// Worth trying again later.
    public static let retryable: Set<APNsReason> = [
        .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout,
    ]
}
