import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// The broker restarts while events stream through the whole pipeline. It takes the node
/// down, so the test command runs it on its own after the main run
/// (`HERALD_TEST_ALONE=1 swift test --filter EndToEndBrokerRestartTests`).
@Suite(
    "End to end across a broker restart",
    .serialized,
    .runsAlone, .needs(.broker)
)
struct EndToEndBrokerRestartTests {
    /// An upstream that retries its event until the gateway answers 202, as the gateway's 503
    /// with Retry-After asks it to; every accepted event then reaches its device.
    @Test func aBrokerRestartMidStreamLosesNoAcceptedEvent() async throws {
        let stack = try await HeraldStack.start()
        do {
            // The upstream posts until 100 events were accepted after the restart, so events
            // are in flight before, during and after it whatever the machine's speed.
            let progress = Progress()
            let poster = Task {
                var index = 0
                while await progress.acceptedAfterRestart < 100 {
                    let body: [String: Any] = ["id": "restart-\(index)", "source": "api", "kind": "test", "audience": ["tokens": [["platform": "fcm", "token": "restart-\(index)"]]]]
                    while await stack.call("POST", "/events", body).status != 202 {
                        await progress.refused()
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    await progress.accepted()
                    index += 1
                }
                return index
            }
            try await eventually(timeout: .seconds(60), "100 deliveries before the restart") {
                stack.sandbox.state.messages(provider: "fcm", limit: 100_000).count >= 100
            }
            try await TestBroker.rabbitmqctl("stop_app")
            try await eventually("the gateway to refuse events while the broker is down") { await progress.refusals > 0 }
            try await TestBroker.rabbitmqctl("start_app")
            try await TestBroker.rabbitmqctl("await_startup")
            await progress.restarted()
            let count = try await within(.seconds(180), "100 events accepted after the restart") { try await poster.value }
            let tokens = Set((0..<count).map { "restart-\($0)" })
            try await eventually(timeout: .seconds(120), "every accepted event delivered") {
                Set(stack.sandbox.state.messages(provider: "fcm", limit: 100_000).map(\.token)).count == count
            }
            let received = stack.sandbox.state.messages(provider: "fcm", limit: 100_000).map(\.token)
            print("end-to-end broker restart: \(count) events, \(await progress.refusals) refusals while down, \(received.count) sends")
            #expect(Set(received) == tokens)
            for service in stack.services { #expect(service.process.isRunning, "\(service.name) rode through the restart") }
            try await stack.stop()
        } catch {
            await stack.discard()
            throw error
        }
    }
}

/// The upstream's side of the test: events accepted and refused, before and after the restart.
actor Progress {
    private(set) var refusals = 0
    private(set) var acceptedAfterRestart = 0
    private var isRestarted = false

    func refused() { refusals += 1 }
    func accepted() { if isRestarted { acceptedAfterRestart += 1 } }
    func restarted() { isRestarted = true }
}
