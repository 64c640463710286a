import Messaging
import ServiceKit
import Synchronization
import Testing

/// `Backoff.retrying`: the one loop behind a stage's commit retries and the dead-letter reports.
struct BackoffRetryingTests {
    struct Refused: Error {}
    let backoff = Backoff(initial: .milliseconds(1), maximum: .milliseconds(1))

    @Test func aStepThatSucceedsOnTheThirdTryStopsThereWithNoError() async {
        let runs = Mutex(0)
        let failures = Mutex([Int]())
        let error = await backoff.retrying(attempts: 5, failed: { attempt, _ in failures.withLock { $0.append(attempt) } }) {
            let run = runs.withLock { $0 += 1; return $0 }
            if run < 3 { throw Refused() }
        }
        #expect(error == nil)
        #expect(runs.withLock { $0 } == 3)
        #expect(failures.withLock { $0 } == [1, 2])
    }

    @Test func aStepThatKeepsFailingIsRunAtMostTheAttemptsAndItsLastErrorReturned() async {
        let runs = Mutex(0)
        let error = await backoff.retrying(attempts: 4) {
            runs.withLock { $0 += 1 }
            throw Refused()
        }
        #expect(error is Refused)
        #expect(runs.withLock { $0 } == 4)
    }
}
