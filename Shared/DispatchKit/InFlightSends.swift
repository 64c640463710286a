/// The delivery ids one dispatcher process is sending right now. After a broker restart a
/// request can be in its queue twice (the copy a stage could not acknowledge, and the copy
/// an earlier stage published again) and both can arrive in one prefetch: the second copy
/// waits here for the first to finish, then finds it in the `SentRecord` instead of sending
/// it alongside.
actor InFlightSends {
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Takes `deliveryId` and answers true when no copy of it is in flight (the caller must
    /// `end` it); answers false at once when one is.
    func take(_ deliveryId: String) -> Bool {
        guard waiting[deliveryId] == nil else { return false }
        waiting[deliveryId] = []
        return true
    }

    /// Returns once no copy of `deliveryId` is in flight.
    func waitForEnd(of deliveryId: String) async {
        guard waiting[deliveryId] != nil else { return }
        await withCheckedContinuation { waiting[deliveryId, default: []].append($0) }
    }

    /// The send of `deliveryId` is over (and recorded when it was delivered).
    func end(_ deliveryId: String) {
        for waiter in waiting.removeValue(forKey: deliveryId) ?? [] { waiter.resume() }
    }
}
