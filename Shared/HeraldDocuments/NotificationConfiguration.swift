import Foundation

/// A device's notification configuration, the Sudo shape: an ordered list of entries, each
/// enabling or disabling one service, for everything or for the events whose context field
/// matches a value (one Sudo, one email address). The most specific entry that applies wins
/// (an address's over its Sudo's over the service's), the later of two equally specific
/// ones; a device without entries gets everything. It is one document on both sides: Preferences filters with
/// these rules, and an app reads it (`GET …/devices/{id}/configuration`), changes it with the
/// Sudo SDK's helpers below and writes it whole (`PUT`, with the read's `ETag` as `If-Match`:
/// a 412 means another client wrote in between, so read again and redo the change).
public struct NotificationConfiguration: Codable, Sendable, Hashable {
    /// The service of Sudo email's pushes.
    public static let emailService = "sudo-email"

    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    public struct Entry: Codable, Sendable, Hashable {
        /// The service the entry is about, e.g. `sudo-email` (an event's `context.service`,
        /// else its source).
        public var service: String
        public var enabled: Bool
        /// When present, the entry only applies to events whose context matches it.
        public var rule: Rule?

        public init(service: String, enabled: Bool, rule: Rule? = nil) {
            self.service = service
            self.enabled = enabled
            self.rule = rule
        }
    }

    /// `context[field] == value`.
    public struct Rule: Codable, Sendable, Hashable {
        public var field: Field
        public var value: String

        public init(field: Field, value: String) {
            self.field = field
            self.value = value
        }
    }

    /// The context fields a rule can match.
    public enum Field: String, Codable, Sendable, Hashable, CaseIterable {
        case sudoId, emailAddressId

        /// How specific a rule on the field is: an address belongs to one Sudo, so its rule
        /// outranks the Sudo's (a rule-less entry is 0).
        public var specificity: Int {
            switch self {
            case .sudoId: 1
            case .emailAddressId: 2
            }
        }
    }

    /// Whether an event of `service` with `context` is enabled: the most specific entry that
    /// applies decides (an address's over a Sudo's over the service's rule-less one, whatever
    /// the order they were set in), the last of those if several; none applies → `byDefault`
    /// (enabled, unless the app makes the service opt-in, as Sudo's email is: "you must
    /// enable them for the device's notification configuration").
    public func isEnabled(service: String, context: [String: String], byDefault: Bool = true) -> Bool {
        var decision: (specificity: Int, enabled: Bool)?
        for entry in entries where entry.service == service {
            if let rule = entry.rule, context[rule.field.rawValue] != rule.value { continue }
            let specificity = entry.rule?.field.specificity ?? 0
            if specificity >= decision?.specificity ?? 0 { decision = (specificity, entry.enabled) }
        }
        return decision?.enabled ?? byDefault
    }

    /// Sudo SDK "initialise": adds an entry enabling `service` if the service has no
    /// rule-less entry yet, before all others so it never overrides a Sudo or address rule.
    /// Everything else is kept.
    public mutating func initialize(service: String) {
        guard !entries.contains(where: { $0.service == service && $0.rule == nil }) else { return }
        entries.insert(Entry(service: service, enabled: true), at: 0)
    }

    /// Enables or disables `service` for the events matching `rule` (one Sudo or one
    /// address), replacing any earlier entry for the same rule; other entries are kept.
    public mutating func set(service: String, rule: Rule, enabled: Bool) {
        entries.removeAll { $0.service == service && $0.rule == rule }
        entries.append(Entry(service: service, enabled: enabled, rule: rule))
    }

    // MARK: The app's side

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

    // MARK: Sudo email: the SDK's helpers, touching only email's entries

    /// Sudo's `initEmailNotifications()`: email on unless a Sudo or an address says otherwise.
    /// Until a device's configuration has it, the device gets no email pushes (the app's
    /// `optInServices`, which holds `sudo-email` by default).
    public mutating func initEmailNotifications() {
        initialize(service: Self.emailService)
    }

    /// Whether email for the Sudo `id` is on; off until enabled (email is opt-in, as in Sudo's SDK).
    public func areNotificationsEnabled(forSudoWithId id: String) -> Bool {
        isEnabled(service: Self.emailService, context: [Field.sudoId.rawValue: id], byDefault: false)
    }

    /// Whether email to the address `id` is on (by its own entry, or email's rule-less one);
    /// off until enabled.
    public func areNotificationsEnabled(forEmailAddressWithId id: String) -> Bool {
        isEnabled(service: Self.emailService, context: [Field.emailAddressId.rawValue: id], byDefault: false)
    }

    /// Turns email for the Sudo `id` on or off.
    public mutating func setNotificationsEnabled(_ enabled: Bool, forSudoWithId id: String) {
        set(service: Self.emailService, rule: Rule(field: .sudoId, value: id), enabled: enabled)
    }

    /// Turns email to the address `id` on or off.
    public mutating func setNotificationsEnabled(_ enabled: Bool, forEmailAddressWithId id: String) {
        set(service: Self.emailService, rule: Rule(field: .emailAddressId, value: id), enabled: enabled)
    }
}
