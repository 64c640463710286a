import Foundation
import HeraldModel

/// Evernym's sponsees and their com methods.
public protocol SponseeStore: Sendable {
    func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee
}

extension SponseeStore {
    @discardableResult
    public func setSponsee(app: String, _ sponsee: Sponsee) async throws -> Sponsee {
        try await setSponsee(app: app, sponsee, now: Date())
    }
}
