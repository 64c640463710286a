import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `SourceStateStore`: Evernym's sponsees and email addresses' keys.
extension PostgresRegistrationStore {
    public func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee {
        try await database.query("""
            INSERT INTO sponsees (app, sponseeId, type, value, updatedAt) VALUES (\(app), \(sponsee.sponseeId), \(sponsee.type), \(sponsee.value), \(now))
            ON CONFLICT (app, sponseeId) DO UPDATE SET type = excluded.type, value = excluded.value, updatedAt = excluded.updatedAt
            """, logger: logger)
        return sponsee
    }

    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey {
        if let deviceId {
            try await database.query("""
                INSERT INTO deviceAddressKeys (app, emailAddressId, deviceId, keyId, publicKey, ownerUserId, updatedAt)
                VALUES (\(app), \(emailAddressId), \(deviceId), \(keyId), \(publicKeyDER), \(ownerUserId), \(now))
                ON CONFLICT (app, emailAddressId, deviceId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                    ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                """, logger: logger)
            return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
        }
        try await database.query("""
            INSERT INTO addressKeys (app, emailAddressId, keyId, publicKey, ownerUserId, updatedAt)
            VALUES (\(app), \(emailAddressId), \(keyId), \(publicKeyDER), \(ownerUserId), \(now))
            ON CONFLICT (app, emailAddressId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
            """, logger: logger)
        return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
    }
}
