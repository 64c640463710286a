import HeraldModel

/// The TTL an event gets when it names none, by its source and then its kind (`*` for
/// every kind of the source): the app's `defaultTTL` section first, then Herald's own
/// defaults (each source's `defaultTTLs`), else none (the provider keeps the push for its longest, four weeks). Smart ID
/// says its `timeToLive` "will override configured value": this is that configured value.
///
/// ```yaml
/// defaultTTL:
///   smartid: { auth: 120, sign: 300 }
///   upstra: { "*": 86400 }
/// ```
public struct DefaultTTL: Decodable, Sendable, Hashable {
    /// Seconds by source (`EventSource`'s raw value), then kind or `*`.
    public var seconds: [String: [String: Int]]

    public init(_ seconds: [String: [String: Int]] = [:]) {
        self.seconds = seconds
    }

    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode([String: [String: Int]].self)
    }

    /// The app's TTL in seconds for an event of `source` and `kind` that names none (its kind,
    /// else `*`), or nil; `SourceRegistry.defaultTTL` falls back to the source's own.
    public func seconds(source: EventSource, kind: String) -> Int? {
        guard let bySource = seconds[source.rawValue] else { return nil }
        return bySource[kind] ?? bySource["*"]
    }

    /// The first entry that is not a TTL, as its path under `defaultTTL` and the reason; nil
    /// when every entry is one. (Whether each names a source served here is
    /// `SourceRegistry.validate`'s to say.)
    func problem() -> (path: String, reason: String)? {
        for source in seconds.keys.sorted() {
            for (kind, ttl) in seconds[source, default: [:]].sorted(by: { $0.key < $1.key }) {
                if kind.isEmpty { return (source, "a kind must not be empty") }
                if let problem = DeliveryOptions.problem(ttl: ttl) { return ("\(source).\(kind)", problem) }
            }
        }
        return nil
    }
}
