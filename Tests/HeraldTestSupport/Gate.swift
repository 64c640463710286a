/// Lets tasks wait until a test opens it.
public actor Gate {
    public private(set) var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// A count that concurrent tasks add to.
public actor Tally {
    public private(set) var value = 0
    public init() {}
    public func add() { value += 1 }
}
