import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import Synchronization
import Testing

/// The window that gathers single sends into batches, on a clock the test moves.
@Suite("Send window")
struct SendWindowTests {
    /// Records each batch it is handed and delivers every request.
    final class Provider: Sendable {
        let batches = Mutex<[[String]]>([])
        func send(_ batch: [DispatchRequest]) async -> [SendResult] {
            batches.withLock { $0.append(batch.map(\.token)) }
            return batch.map { .delivered(providerId: $0.token) }
        }
    }

    static func sendAll(_ window: SendWindow, _ tokens: [String]) -> Task<[SendResult], Never> {
        Task {
            await withTaskGroup(of: SendResult.self) { group in
                for token in tokens { group.addTask { await window.send(TestSandbox.request(token: token)) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
    }

    @Test func sendsWaitUntilTheWindowsTimeIsUpAndThenGoAsOneBatch() async throws {
        let clock = TestClock()
        let provider = Provider()
        let window = SendWindow(window: .milliseconds(20), limit: 100, clock: clock, send: provider.send)
        let sending = Self.sendAll(window, ["a", "b", "c"])
        try await eventually("three sends waiting and the window's timer set") { await window.waiting == 3 && clock.sleeping == 1 }
        clock.advance(by: .milliseconds(19))
        #expect(provider.batches.withLock { $0.isEmpty }, "nothing leaves before the window closes")
        clock.advance(by: .milliseconds(1))
        let results = await sending.value
        #expect(Set(results) == [.delivered(providerId: "a"), .delivered(providerId: "b"), .delivered(providerId: "c")], "each caller gets its own result")
        #expect(provider.batches.withLock { $0.map { Set($0) } } == [["a", "b", "c"]])
    }

    @Test func aFullWindowGoesAtOnceWithoutWaitingForItsTime() async throws {
        let clock = TestClock()
        let provider = Provider()
        let window = SendWindow(window: .milliseconds(20), limit: 4, clock: clock, send: provider.send)
        let results = await Self.sendAll(window, ["a", "b", "c", "d"]).value
        #expect(results.count == 4)
        #expect(provider.batches.withLock { $0.map(\.count) } == [4])
    }

    @Test func aSendThatCannotJoinGoesAloneAtOnce() async throws {
        let clock = TestClock()
        let provider = Provider()
        let window = SendWindow(window: .milliseconds(20), limit: 100, clock: clock, joins: { $0.token != "sealed" }, send: provider.send)
        let result = await window.send(TestSandbox.request(token: "sealed"))
        #expect(result == .delivered(providerId: "sealed"))
        #expect(provider.batches.withLock { $0 } == [["sealed"]] && clock.sleeping == 0)
    }
}
