import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `SourceStateStore`: Evernym's sponsees and email addresses' keys.
extension SQLiteRegistrationStore {
    @discardableResult
    public func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee {
        try await database.durableWrite { db in
            try db.execute(sql: """
                INSERT INTO sponsees (app, sponseeId, type, value, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app, sponseeId) DO UPDATE SET type = excluded.type, value = excluded.value, updatedAt = excluded.updatedAt
                """, arguments: [app, sponsee.sponseeId, sponsee.type, sponsee.value, now])
        }
        return sponsee
    }

    @discardableResult
    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey {
        try await database.durableWrite { db in
            if let deviceId {
                try db.execute(sql: """
                    INSERT INTO deviceAddressKeys (app, emailAddressId, deviceId, keyId, publicKey, ownerUserId, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app, emailAddressId, deviceId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                        ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                    """, arguments: [app, emailAddressId, deviceId, keyId, publicKeyDER, ownerUserId, now])
                return
            }
            try db.execute(sql: """
                INSERT INTO addressKeys (app, emailAddressId, keyId, publicKey, ownerUserId, updatedAt) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, emailAddressId) DO UPDATE SET keyId = excluded.keyId, publicKey = excluded.publicKey,
                    ownerUserId = excluded.ownerUserId, updatedAt = excluded.updatedAt
                """, arguments: [app, emailAddressId, keyId, publicKeyDER, ownerUserId, now])
        }
        return AddressKey(emailAddressId: emailAddressId, keyId: keyId, publicKey: publicKeyDER)
    }
}
