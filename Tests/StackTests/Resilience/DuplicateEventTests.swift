import Foundation
import HTTPTransport
import HeraldTestSupport
import Messaging
import ServiceKit
import Testing

/// Duplicates are suppressed where they arise: an upstream that posts the same event to two
/// gateways at once (a retry racing its original, two replicas of the upstream) gets one
/// push per device, while the pipeline is under a load of 1,000 events a second. The
/// gateways each accept the event (each has its own short window); Registration claims the
/// event id atomically, so only one copy fans out. The debug binaries of the test command
/// answer about half the offered rate; for the full load, run it on the release binaries:
/// `HERALD_BIN_DIR=$(swift build -c release --show-bin-path) swift test --filter DuplicateEventTests`.
extension ServiceProcesses {
    /// Its load needs the machine to itself: the test command runs it alone (with
    /// `HERALD_TEST_ALONE=1`), after the parallel run, where it would offer a fraction of it.
    @Suite("One event posted to two gateways at once", .runsAlone, .needs(.broker))
    struct DuplicateEventTests {
        static let events = 3_000
        static let perSecond = 1_000

        @Test func theSameEventPostedToTwoGatewaysAtOnceUnderLoadIsOnePushPerDevice() async throws {
            let stack = try await HeraldStack.start(gateways: 2)
            let transport = HTTPTransport(configuration: HTTPTransportConfiguration(
                name: "load", maxConnectionsPerHost: 128, maxRequestsPerHost: 128, maxQueueWait: .seconds(120)))
            do {
                let tokens = (0..<50).map { "dup-\(stack.app)-\($0)" }
                func body(_ index: Int) -> Data {
                    Data(#"{"id":"dup-\#(index)","source":"api","kind":"test","audience":{"tokens":[{"platform":"fcm","token":"\#(tokens[index % tokens.count])"}]}}"#.utf8)
                }
                // Answered 202, or 503 / no answer under load and then posted again, as an
                // upstream does (the id makes a repeat harmless); anything else is recorded.
                @Sendable func post(_ body: Data, to gateway: ServiceProcess) async -> Int {
                    let request = HTTPRequest(
                        method: "POST", url: "http://127.0.0.1:\(gateway.port)/v1/apps/\(stack.app)/events",
                        headers: [("Authorization", "Bearer \(stack.key)"), ("Content-Type", "application/json")], body: body)
                    for _ in 0..<20 {
                        let status = (try? await transport.send(request))?.status ?? 0
                        if status != 503 && status != 0 { return status }
                        try? await Task.sleep(for: .milliseconds(500))
                    }
                    return 0
                }
                let started = ContinuousClock.now
                let (statuses, sent) = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<Self.events {
                        // Paced: event i is due at i milliseconds (1,000 a second), to both gateways at once.
                        try? await Task.sleep(until: started + .milliseconds(index * 1000 / Self.perSecond), clock: .continuous)
                        let event = body(index)
                        for gateway in stack.gateways { group.addTask { await post(event, to: gateway) } }
                    }
                    let sent = ContinuousClock.now
                    return (await group.reduce(into: [Int]()) { $0.append($1) }, sent)
                }
                let offered = Double(Self.events) / (sent - started).seconds
                let answered = Double(Self.events) / (ContinuousClock.now - started).seconds
                #expect(statuses.count == 2 * Self.events && statuses.allSatisfy { $0 == 202 }, "answers: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")

                @Sendable func eventIds() -> [String] { stack.sandbox.state.messages(provider: "fcm", limit: 20_000).compactMap(\.eventId) }
                try await eventually(timeout: .seconds(300), "a push for every event") { Set(eventIds()).count == Self.events }
                // Then until nothing is left anywhere in the pipeline, so a late copy would be seen.
                try await eventually(timeout: .seconds(120), "Herald's queues to drain") {
                    let listing = try await TestBroker.rabbitmqctl("list_queues", "name", "messages")
                    return HeraldStack.queues.allSatisfy { queue in
                        listing.split(separator: "\n").contains { $0.split(separator: "\t").first.map(String.init) == queue.name && $0.hasSuffix("\t0") }
                    }
                }
                let pushes = Dictionary(grouping: eventIds(), by: { $0 }).mapValues(\.count)
                print("two gateways: \(Self.events) events posted twice, \(Int(offered)) events/s offered, \(Int(answered)) events/s answered by both; \(pushes.values.reduce(0, +)) pushes")
                #expect(pushes.count == Self.events)
                #expect(pushes.values.allSatisfy { $0 == 1 }, "pushed more than once: \(pushes.filter { $0.value > 1 }.keys.sorted().prefix(10))")
                await transport.close()
                try await stack.stop()
            } catch {
                await transport.close()
                await stack.discard()
                throw error
            }
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
