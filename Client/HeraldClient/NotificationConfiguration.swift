import Foundation

/// A device's notification configuration as `GET …/devices/{id}/configuration` answers it
/// and `PUT` takes it, with the Sudo SDK's helpers for email: read it, change it here, write
/// it whole with the `ETag` of the read as `If-Match` (a 412 means another client wrote in
/// between: read again and redo the change). The helpers touch only the `sudo-email`
/// service's entries, so other services' configuration is kept. The rules are the server's:
/// the last entry of the service that applies decides, and none means enabled.
public struct NotificationConfiguration: Codable, Sendable, Hashable {
    /// The service of Sudo email's pushes.
    public static let emailService = "sudo-email"

    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// One service enabled or disabled, for everything or for one Sudo or one address.
    public struct Entry: Codable, Sendable, Hashable {
        public var service: String
        public var enabled: Bool
        public var rule: Rule?

        public init(service: String, enabled: Bool, rule: Rule? = nil) {
            self.service = service
            self.enabled = enabled
            self.rule = rule
        }
    }

    /// The entry applies to the events whose `field` is `value`.
    public struct Rule: Codable, Sendable, Hashable {
        public var field: Field
        public var value: String

        public init(field: Field, value: String) {
            self.field = field
            self.value = value
        }
    }

    public enum Field: String, Codable, Sendable, Hashable {
        case sudoId, emailAddressId
    }

    /// The configuration of a `GET`/`PUT …/configuration` answer (`{"configuration": …}`).
    public init(reply: Data) throws {
        struct Reply: Decodable { var configuration: NotificationConfiguration }
        self = try JSONDecoder().decode(Reply.self, from: reply).configuration
    }

    /// The body of a `PUT …/configuration`.
    public func requestBody() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    // MARK: Sudo email

    /// Sudo's `initEmailNotifications()`: email is on for everything unless a Sudo or an
    /// address says otherwise; adds that entry in front if email has no rule-less entry yet.
    public mutating func initEmailNotifications() {
        guard !entries.contains(where: { $0.service == Self.emailService && $0.rule == nil }) else { return }
        entries.insert(Entry(service: Self.emailService, enabled: true), at: 0)
    }

    /// Whether email for the Sudo `id` is on.
    public func areNotificationsEnabled(forSudoWithId id: String) -> Bool {
        isEnabled(Rule(field: .sudoId, value: id))
    }

    /// Whether email to the address `id` is on (by its own entry, or email's rule-less one).
    public func areNotificationsEnabled(forEmailAddressWithId id: String) -> Bool {
        isEnabled(Rule(field: .emailAddressId, value: id))
    }

    /// Turns email for the Sudo `id` on or off.
    public mutating func setNotificationsEnabled(_ enabled: Bool, forSudoWithId id: String) {
        set(Rule(field: .sudoId, value: id), enabled: enabled)
    }

    /// Turns email to the address `id` on or off.
    public mutating func setNotificationsEnabled(_ enabled: Bool, forEmailAddressWithId id: String) {
        set(Rule(field: .emailAddressId, value: id), enabled: enabled)
    }

    /// The server's rule for an event carrying only `rule`'s field: the last email entry
    /// without a rule or with this one decides; none, enabled.
    private func isEnabled(_ rule: Rule) -> Bool {
        for entry in entries.reversed() where entry.service == Self.emailService && (entry.rule == nil || entry.rule == rule) {
            return entry.enabled
        }
        return true
    }

    /// The server's `setRule`: the entry for `rule` replaced and appended, so it wins.
    private mutating func set(_ rule: Rule, enabled: Bool) {
        entries.removeAll { $0.service == Self.emailService && $0.rule == rule }
        entries.append(Entry(service: Self.emailService, enabled: enabled, rule: rule))
    }
}
