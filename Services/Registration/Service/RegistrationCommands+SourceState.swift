import Foundation
import HeraldCrypto
import HeraldModel

/// The commands of sources' state routes (`SourceStateChange`): each validated with errors
/// that name the field, authorized for a client token against the store, and kept by the
/// store as a device or through its `SourceStateStore`.
extension RegistrationCommands {
    func apply(_ change: SourceStateChange, app: String, actingFor identity: ClientIdentity?) async throws -> RegistrationReply {
        switch change {
        case .pushIdDevice(let token, let os, let platform, let pushIds):
            guard !pushIds.isEmpty else { throw CommandError(code: "invalid-profileID", detail: "give at least one profile id") }
            for (index, id) in pushIds.enumerated() { try Self.check(id, "profileID[\(index)]") }
            let registration = DeviceRegistration(deviceId: token, platform: platform, token: token, os: os, pushIds: pushIds)
            try Self.validate(registration)
            return RegistrationReply(device: try await store.register(app: app, registration, actingFor: identity, now: Date()))
        case .sponsee(let sponseeId, let type, let value):
            try Self.check(sponseeId, "id")
            // Both types are pushed to the com method in value (the gateway checked that it
            // names a provider the app has, unless the app forwards everything to its server).
            guard type == 3 || type == 4 else {
                throw CommandError(code: "invalid-type", detail: "type: 3 (Verity forwards, Herald pushes) or 4 (Verity pushes), not \(type)")
            }
            guard TextLimits.fits(value, maximum: TextLimits.long) else {
                throw CommandError(code: "invalid-value", detail: "value: the com method, e.g. FCM:<token>, 1 to \(TextLimits.long) characters")
            }
            return RegistrationReply(sponsee: try await store.setSponsee(app: app, Sponsee(sponseeId: sponseeId, type: type, value: value)))
        case .addressKey(let emailAddressId, let keyId, let publicKey, let ownerUserId, let deviceId):
            try Self.check(emailAddressId, "emailAddressId")
            try Self.check(keyId, "keyId")
            if let deviceId {
                // A device's own key: the device registers first, and its key goes with it.
                try Self.check(deviceId, "deviceId")
                guard try await store.device(app: app, deviceId: deviceId) != nil else {
                    throw CommandError(code: "device-not-found", detail: "deviceId: app \(app) has no device \(deviceId); register the device first", status: 404)
                }
            }
            let key: RSAEncryptionKey
            do {
                key = try RSAEncryptionKey(publicKey)
            } catch let error as HeraldCryptoError {
                throw CommandError(code: "invalid-key", detail: "publicKey: \(error.message)", status: 422)
            }
            let stored = try await store.setAddressKey(
                app: app, emailAddressId: emailAddressId, keyId: keyId, publicKeyDER: key.spkiDER.base64EncodedString(), ownerUserId: ownerUserId, deviceId: deviceId)
            return RegistrationReply(addressKey: stored)
        }
    }

    /// What a client token may change: a device under profile ids its `pushIds` claim holds
    /// (an existing device with that token must be its own: the store checks, in its
    /// transaction), and its own user's address keys; never a sponsee.
    func authorize(_ change: SourceStateChange, app: String, for identity: ClientIdentity) async throws {
        switch change {
        case .pushIdDevice(_, _, _, let pushIds):
            guard identity.mayListen(to: pushIds) else { throw Self.forbidden("profileID: the client token's pushIds claim does not hold every one of these profile ids") }
        case .addressKey(let emailAddressId, _, _, let ownerUserId, let deviceId):
            guard ownerUserId == identity.userId else { throw Self.forbidden("owner: a client token registers address keys for its own user (sub) only") }
            if let deviceId { try await requireOwned(app: app, deviceId: deviceId, by: identity) }
            var lookup = AudienceLookup()
            lookup.addresses[app] = [emailAddressId]
            if let owner = try await store.lookUp(lookup).addressKey(app: app, emailAddressId: emailAddressId)?.owner, owner != identity.userId {
                throw Self.forbidden("email address \(emailAddressId) belongs to another user: a client token registers keys for its own user's addresses only")
            }
        case .sponsee:
            throw Self.forbidden("a client token cannot send this command: it is for server API keys")
        }
    }
}
