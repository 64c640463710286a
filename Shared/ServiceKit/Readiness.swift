import Synchronization

/// The checks behind `GET /readyz`: the service is ready when every registered check holds
/// (the broker connections are open, the store is open, …).
public final class Readiness: Sendable {
    private let checks = Mutex<[(name: String, check: @Sendable () -> Bool)]>([])

    public init() {}

    /// Adds a named check; a later check with the same name replaces it.
    public func register(_ name: String, _ check: @escaping @Sendable () -> Bool) {
        checks.withLock { list in
            list.removeAll { $0.name == name }
            list.append((name, check))
        }
    }

    public func remove(_ name: String) {
        checks.withLock { $0.removeAll { $0.name == name } }
    }

    /// Each check's name and whether it holds now.
    public func evaluate() -> [(name: String, ready: Bool)] {
        let current = checks.withLock { $0 }
        return current.map { ($0.name, $0.check()) }
    }

    public var isReady: Bool { evaluate().allSatisfy(\.ready) }
}

/// A readiness check whose subject appears later: it fails until `attach` gives it one,
/// so a part can be counted from the moment it is created, before it runs.
public final class ReadinessProbe: Sendable {
    private let check = Mutex<(@Sendable () -> Bool)?>(nil)

    public init() {}

    public func attach(_ check: @escaping @Sendable () -> Bool) {
        self.check.withLock { $0 = check }
    }

    public var holds: Bool {
        let current = check.withLock { $0 }
        return current?() ?? false
    }
}
