/// The delivery ids one dispatcher process is sending right now. After a broker restart or
/// a failover a request can be in its queue twice (the copy a stage could not acknowledge,
/// and the copy an earlier stage published again or the broker handed over) and both can be
/// handled at once: the second copy waits here for the first to finish and learns its
/// result, instead of being sent alongside it.
actor InFlightSends {
    private var waiting: [String: [CheckedContinuation<SendResult?, Never>]] = [:]

    /// Takes `deliveryId` and answers true when no copy of it is in flight (the caller must
    /// `end` it); answers false at once when one is.
    func take(_ deliveryId: String) -> Bool {
        guard waiting[deliveryId] == nil else { return false }
        waiting[deliveryId] = []
        return true
    }

    /// Returns once no copy of `deliveryId` is in flight, with the result of the send that
    /// was (nil when none was in flight).
    func waitForEnd(of deliveryId: String) async -> SendResult? {
        guard waiting[deliveryId] != nil else { return nil }
        return await withCheckedContinuation { waiting[deliveryId, default: []].append($0) }
    }

    /// The send of `deliveryId` is over with `result` (recorded when it was delivered).
    func end(_ deliveryId: String, result: SendResult) {
        for waiter in waiting.removeValue(forKey: deliveryId) ?? [] { waiter.resume(returning: result) }
    }
}
