import Foundation
import GRDB
import HeraldModel
import HeraldStorage

/// The store as a `SponseeStore`: Evernym's sponsees.
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
}
