import Messaging

extension Backoff {
    /// Runs `step` up to `attempts` times, waiting this backoff after each failure but the
    /// last (each failure is told to `failed` first). A failure `counts` says nothing of
    /// (the service's resource being unavailable, say) is waited out without using up an
    /// attempt. Answers nil once a run succeeded, else the last error: the caller decides
    /// what a step that keeps failing means.
    public func retrying(
        attempts: Int, counts: (any Error) -> Bool = { _ in true }, failed: (_ attempt: Int, _ error: any Error) -> Void = { _, _ in },
        _ step: () async throws -> Void
    ) async -> (any Error)? {
        var attempt = 1
        var waits = 0
        while true {
            do {
                try await step()
                return nil
            } catch {
                failed(attempt, error)
                let counted = counts(error)
                if counted && attempt >= attempts { return error }
                try? await Task.sleep(for: delay(attempt: waits))
                waits += 1
                if counted { attempt += 1 }
            }
        }
    }
}
