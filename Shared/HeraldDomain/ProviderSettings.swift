import Foundation
import ServiceKit

/// One app's settings for one provider, as written under the provider's own key in the
/// apps file (`fcm:`, `hms:`, …). The provider module declares the type; the apps file
/// keeps the section as written until the provider reads it (`AppConfiguration.settings`).
public protocol ProviderSettings: Codable, Sendable, Hashable {
    /// The key of the section in an app, e.g. `fcm`.
    static var key: String { get }
    /// Checks what the types cannot and resolves relative file paths with `resolve`;
    /// `invalid(path, message)` makes the error naming the setting, e.g. `endpoint`.
    mutating func validate(resolve: (String) -> String, invalid: (_ path: String, _ message: String) -> ConfigurationError) throws
}

extension ProviderSettings {
    public mutating func validate(resolve: (String) -> String, invalid: (_ path: String, _ message: String) -> ConfigurationError) throws {}
}
