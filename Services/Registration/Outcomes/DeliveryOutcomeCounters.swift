import HeraldModel
import Metrics
import Synchronization

/// `herald_delivery_outcomes_total{status, code}`: every outcome Registration records, by
/// status and by the provider's code (`none` where Herald decided on its own; Herald's own
/// reasons are counted where they are decided, e.g. `herald_preferences_decisions_total`).
/// A code that is not a short upper-case identifier counts as `other`, so a provider cannot
/// grow the label set without limit.
final class DeliveryOutcomeCounters: Sendable {
    private struct Key: Hashable {
        var status: OutcomeStatus
        var code: String
    }

    private let counters = Mutex<[Key: Counter]>([:])

    /// Counts `outcome`: a lookup on its status and code (no string is built per outcome;
    /// Registration records thousands a second).
    func count(_ outcome: Outcome) {
        let key = Key(status: outcome.status, code: Self.label(outcome.providerCode))
        let counter = counters.withLock { table in
            if let existing = table[key] { return existing }
            let made = Counter(label: "herald_delivery_outcomes_total", dimensions: [("status", key.status.rawValue), ("code", key.code)])
            table[key] = made
            return made
        }
        counter.increment()
    }

    /// The provider code as a label value: `none`, the code, or `other`.
    static func label(_ code: String?) -> String {
        guard let code else { return "none" }
        let allowed = code.utf8.count <= 40 && !code.isEmpty && code.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return allowed ? code : "other"
    }
}
