/// The delivery ids one dispatcher process is sending right now. After a broker restart a
/// request can be in its queue twice (the copy a stage could not acknowledge, and the copy
/// an earlier stage published again) and both can arrive in one prefetch: the second copy
/// waits here for the first to finish, then finds it in the `SentRecord` instead of sending
/// it alongside.
actor InFlightSends {
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// True when the caller may send `deliveryId` now (no copy of it is in flight; the
    /// caller must `end` it). Otherwise waits until the copy in flight has ended, and
    /// answers false.
    func begin(_ deliveryId: String) async -> Bool {
        guard waiting[deliveryId] != nil else {
            waiting[deliveryId] = []
            return true
        }
        await withCheckedContinuation { waiting[deliveryId, default: []].append($0) }
        return false
    }

    /// The send of `deliveryId` is over (and recorded when it was delivered).
    func end(_ deliveryId: String) {
        for waiter in waiting.removeValue(forKey: deliveryId) ?? [] { waiter.resume() }
    }
}
