import Foundation

/// `herald.token-revoked.v1`: a provider said a token is dead. Published by dispatchers to
/// `herald.control` (`token.revoked`); Registration removes the token unless the device
/// re-registered after `failedSendAt`.
public struct TokenRevoked: Contract, Hashable {
    public static let contractName = ContractName.tokenRevoked

    public var app: String
    public var platform: Platform
    public var token: String
    /// The provider's reason, e.g. `UNREGISTERED`.
    public var reason: String
    public var deviceId: String?
    /// When the send that failed was made, or, when the provider says so (APNs' 410
    /// `timestamp`), since when the token is invalid: a registration after it is kept.
    public var failedSendAt: Date
    /// The delivery whose send failed, when there was one.
    public var deliveryId: String?
    public var eventId: String?

    public var messageId: String { "revoke:\(app):\(platform.rawValue):\(deliveryId ?? token)" }
    public var correlationId: String { eventId ?? messageId }

    public init(
        app: String, platform: Platform, token: String, reason: String, deviceId: String? = nil,
        failedSendAt: Date, deliveryId: String? = nil, eventId: String? = nil
    ) {
        self.app = app
        self.platform = platform
        self.token = token
        self.reason = reason
        self.deviceId = deviceId
        self.failedSendAt = failedSendAt
        self.deliveryId = deliveryId
        self.eventId = eventId
    }
}
