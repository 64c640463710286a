import HeraldModel

/// The TTL an event gets when it names none, by its source and then its kind (`*` for
/// every kind of the source): the app's `defaultTTL` section first, then Herald's own
/// defaults, else none (the provider keeps the push for its longest, four weeks). Smart ID
/// says its `timeToLive` "will override configured value": this is that configured value.
///
/// ```yaml
/// defaultTTL:
///   smartid: { auth: 120, sign: 300 }
///   upstra: { "*": 86400 }
/// ```
public struct DefaultTTL: Decodable, Sendable, Hashable {
    /// Herald's defaults, for what each integration is: an authentication or signing
    /// request is useless once the login or signature it asks for has timed out, so it
    /// waits at the provider five minutes, not four weeks. Chat, email and data-change
    /// events keep the providers' default.
    public static let herald: [String: [String: Int]] = [
        EventSource.smartID.rawValue: ["auth": 300, "sign": 300],
    ]

    /// Seconds by source (`EventSource`'s raw value), then kind or `*`.
    public var seconds: [String: [String: Int]]

    public init(_ seconds: [String: [String: Int]] = [:]) {
        self.seconds = seconds
    }

    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode([String: [String: Int]].self)
    }

    /// The TTL in seconds for an event of `source` and `kind` that names none, or nil for
    /// the provider's default. The app's entry for the source (its kind, else `*`) wins over
    /// Herald's.
    public func seconds(source: EventSource, kind: String) -> Int? {
        for table in [seconds, Self.herald] {
            if let bySource = table[source.rawValue], let ttl = bySource[kind] ?? bySource["*"] { return ttl }
        }
        return nil
    }

    /// The first entry that is not a TTL of a known source, as its path under `defaultTTL`
    /// and the reason; nil when every entry is one.
    func problem() -> (path: String, reason: String)? {
        let sources = EventSource.allCases.map(\.rawValue)
        for source in seconds.keys.sorted() {
            guard sources.contains(source) else { return (source, "is not a source; use one of \(sources.joined(separator: ", "))") }
            for (kind, ttl) in seconds[source, default: [:]].sorted(by: { $0.key < $1.key }) {
                if kind.isEmpty { return (source, "a kind must not be empty") }
                if let problem = DeliveryOptions.problem(ttl: ttl) { return ("\(source).\(kind)", problem) }
            }
        }
        return nil
    }
}
