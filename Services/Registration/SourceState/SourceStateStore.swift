import Foundation
import HeraldModel

/// The state sources keep besides users' devices (`SourceStateChange`): Evernym's sponsees and
/// email addresses' keys. A source's profile devices are devices (`DeviceStore`).
public protocol SourceStateStore: Sendable {
    func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee
    /// Stores an email address's key: with `deviceId`, that device's own (one key per address
    /// and device); else the address's, for the owner's devices without one.
    func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey
}

extension SourceStateStore {
    @discardableResult
    public func setSponsee(app: String, _ sponsee: Sponsee) async throws -> Sponsee {
        try await setSponsee(app: app, sponsee, now: Date())
    }

    @discardableResult
    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String? = nil) async throws -> AddressKey {
        try await setAddressKey(app: app, emailAddressId: emailAddressId, keyId: keyId, publicKeyDER: publicKeyDER, ownerUserId: ownerUserId, deviceId: deviceId, now: Date())
    }
}
