import Foundation

/// A change to the state a source keeps in Registration besides users' devices, as one of its
/// state routes (`SourceStateRoute`) made it from a request: what its events are later
/// resolved against. Registration validates it and stores it through its `SourceStateStore`.
public enum SourceStateChange: Codable, Sendable, Hashable {
    /// A device that listens to push (profile) ids and belongs to no user (Smart ID): its
    /// token is also its id, and the ids replace those it listened to. The gateway has said
    /// whose token it is (`fcm`, or `apns` for an iOS device of an app with APNs settings).
    case pushIdDevice(token: String, os: DeviceOS, platform: Platform, pushIds: [String])
    /// An Evernym sponsee's com method: both types (3: Verity forwards, 4: Verity pushes) are
    /// pushed to the com method in `value`.
    case sponsee(sponseeId: String, type: Int, value: String)
    /// The RSA public key of an email address (SPKI or PKCS #1 PEM, or base64 DER) and the
    /// user who owns it; with `deviceId`, the key of that device alone (each device of the
    /// owner keeps its own private key), else the address's key for the owner's devices
    /// without their own.
    case addressKey(emailAddressId: String, keyId: String, publicKey: String, ownerUserId: String?, deviceId: String?)
}
