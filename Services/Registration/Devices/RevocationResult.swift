import Foundation

/// What a token revocation did to the stored devices.
public enum RevocationResult: Sendable, Hashable {
    /// The device was removed; `userId` is the user it belonged to, if any.
    case removed(deviceId: String, userId: String? = nil)
    /// The device registered again after the failed send: kept.
    case renewed(deviceId: String)
    /// No device has that token (already removed, or a direct token).
    case unknown

    /// The audit row's words for it.
    var audit: String {
        switch self {
        case .removed: "removed"
        case .renewed: "kept: registered again after the failed send"
        case .unknown: "no such device"
        }
    }
}

/// One revocation audit row.
public struct RevocationRecord: Sendable, Hashable {
    public var reason: String
    public var result: String
    public var revokedAt: Date
}
