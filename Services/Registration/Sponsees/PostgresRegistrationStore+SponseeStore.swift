import Foundation
import HeraldModel
import HeraldStorage
import Logging
import PostgresNIO

/// The store as a `SponseeStore`: Evernym's sponsees.
extension PostgresRegistrationStore {
    public func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee {
        try await database.query("""
            INSERT INTO sponsees (app, sponseeId, type, value, updatedAt) VALUES (\(app), \(sponsee.sponseeId), \(sponsee.type), \(sponsee.value), \(now))
            ON CONFLICT (app, sponseeId) DO UPDATE SET type = excluded.type, value = excluded.value, updatedAt = excluded.updatedAt
            """, logger: logger)
        return sponsee
    }
}
