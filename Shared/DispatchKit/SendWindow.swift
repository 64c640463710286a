import HeraldModel

/// Gathers single sends for a short window and hands them to the provider together, so a
/// provider that takes many tokens in one request (Push Kit multicast) can send them as one.
/// A window closes when it holds `limit` sends or `window` after its first send, whichever
/// comes first; each caller still gets its own delivery's result. Sends that cannot join
/// a batch (`joins` false, e.g. encrypted payloads) go at once, without waiting.
public actor SendWindow {
    public typealias SendBatch = @Sendable ([DispatchRequest]) async -> [SendResult]

    public let window: Duration
    public let limit: Int
    private let clock: any Clock<Duration>
    private let joins: @Sendable (DispatchRequest) -> Bool
    private let sendBatch: SendBatch
    private var pending: [(request: DispatchRequest, reply: CheckedContinuation<SendResult, Never>)] = []
    /// Counts windows, so a timer only closes the window it was started for.
    private var generation = 0

    /// `window` zero sends every request at once, alone. `clock` times the window (tests
    /// pass their own).
    public init(
        window: Duration = .milliseconds(20), limit: Int = 1000, clock: any Clock<Duration> = ContinuousClock(),
        joins: @escaping @Sendable (DispatchRequest) -> Bool = { _ in true }, send: @escaping SendBatch
    ) {
        self.window = window
        self.limit = max(1, limit)
        self.clock = clock
        self.joins = joins
        self.sendBatch = send
    }

    /// Sends `request` with whatever else arrives within the window; returns its own result.
    public func send(_ request: DispatchRequest) async -> SendResult {
        guard window > .zero, limit > 1, joins(request) else { return await sendBatch([request]).first ?? BatchParts.missing }
        return await withCheckedContinuation { reply in
            pending.append((request, reply))
            if pending.count >= limit {
                close()
            } else if pending.count == 1 {
                let opened = generation
                Task { [clock, window] in
                    try? await clock.sleep(for: window)
                    await self.close(generation: opened)
                }
            }
        }
    }

    /// Sends waiting for their window to close.
    public var waiting: Int { pending.count }

    private func close(generation opened: Int) {
        guard opened == generation, !pending.isEmpty else { return }
        close()
    }

    /// Sends what the window holds, in a task of its own, and answers each caller.
    private func close() {
        let batch = pending
        pending = []
        generation += 1
        Task { [sendBatch] in
            let results = await sendBatch(batch.map(\.request))
            for (index, entry) in batch.enumerated() {
                entry.reply.resume(returning: index < results.count ? results[index] : BatchParts.missing)
            }
        }
    }
}
