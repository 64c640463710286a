import Messaging

extension Backoff {
    /// Runs `step` up to `attempts` times, waiting this backoff after each failure but the
    /// last (each failure is told to `failed` first). Answers nil once a run succeeded, else
    /// the last error: the caller decides what a step that keeps failing means.
    public func retrying(
        attempts: Int, failed: (_ attempt: Int, _ error: any Error) -> Void = { _, _ in }, _ step: () async throws -> Void
    ) async -> (any Error)? {
        var attempt = 1
        while true {
            do {
                try await step()
                return nil
            } catch {
                failed(attempt, error)
                if attempt >= attempts { return error }
                try? await Task.sleep(for: delay(attempt: attempt - 1))
                attempt += 1
            }
        }
    }
}
