import Crypto
import Foundation

/// A device's notification configuration in the Sudo shape: an ordered list of entries,
/// each enabling or disabling one service, for everything or for the events whose context
/// field matches a value (one Sudo, one email address). Later entries win; a device
/// without entries gets everything.
public struct NotificationConfiguration: Codable, Sendable, Hashable {
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
    }

    /// Whether an event of `service` with `context` is enabled: the last entry that applies
    /// decides; none applies → enabled.
    public func isEnabled(service: String, context: [String: String]) -> Bool {
        for entry in entries.reversed() where entry.service == service {
            guard let rule = entry.rule else { return entry.enabled }
            if context[rule.field.rawValue] == rule.value { return entry.enabled }
        }
        return true
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
}

extension NotificationConfiguration {
    /// The configuration's HTTP entity tag (quoted): a digest of its canonical JSON, so
    /// any change, on any replica, gives another tag and equal configurations the same one.
    public var entityTag: String {
        let body = (try? HeraldJSON.encode(self)) ?? Data()
        return "\"" + SHA256.hash(data: body).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-Match` header value names this configuration (RFC 9110 §13.1.1): `*`,
    /// or one of its comma-separated tags equal to `entityTag` (a weak tag never matches).
    public func matches(ifMatch header: String) -> Bool {
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return tags.contains("*") || tags.contains(entityTag)
    }
}
