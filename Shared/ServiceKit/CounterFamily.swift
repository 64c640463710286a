import Metrics
import Synchronization

/// Counters of one label told apart by a key (a platform, a result, …), each made the first
/// time it is counted and kept: for dimensions whose values are known only at run time,
/// such as the platforms of the provider registry.
public final class CounterFamily<Key: Hashable & Sendable>: Sendable {
    private let label: String
    private let dimensions: @Sendable (Key) -> [(String, String)]
    private let counters = Mutex<[Key: Counter]>([:])

    public init(label: String, dimensions: @escaping @Sendable (Key) -> [(String, String)]) {
        self.label = label
        self.dimensions = dimensions
    }

    /// The counter of `key`.
    public subscript(key: Key) -> Counter {
        counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions(key))
            counters[key] = counter
            return counter
        }
    }
}
