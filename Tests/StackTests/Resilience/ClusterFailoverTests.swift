import Foundation
import HeraldTestSupport
import Testing

/// Herald on a three-node RabbitMQ cluster on this machine (distinct node names and ports),
/// its work queues replicated on all three: the node every service connected to first stops
/// under load, the services fail over to the others, and no accepted event loses its push
/// (counted at the sandbox). It starts three brokers and loads the machine, so the test
/// command runs it alone (`HERALD_TEST_ALONE=1`).
extension ServiceProcesses {
    @Suite("A RabbitMQ cluster", .runsAlone, .needs(.broker))
    struct ClusterFailoverTests {
        /// Free ports for the three nodes' AMQP, each with its Erlang distribution's port
        /// (20,000 above) free too, so that no other broker on the machine is in the way.
        static let ports: [Int] = (0..<3).map { _ in try! freePort(alsoFreeAbove: [20_000]) }
        static let users = 50
        static let events = 1500
        static let rate = 100.0

        static func cluster(_ command: String, _ directory: URL, _ arguments: [String] = []) async throws {
            let script = ". scripts/lib/broker.sh; . scripts/lib/cluster.sh; \(command) \"$@\""
            let (status, output) = try await runCommand("bash", ["-c", "cd '\(PythonChecker.packageRoot.path)' && \(script)", "cluster", directory.path] + arguments)
            guard status == 0 else { throw TestFailure("\(command) failed (\(status)): \(output)") }
        }

        @Test func stoppingTheFirstNodeUnderLoadLosesNoDelivery() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cluster-\(UUID().uuidString.prefix(8))")
            try await Self.cluster("start_cluster", directory, Self.ports.map(String.init))
            do {
                let url = Self.ports.map { "amqp://guest:guest@127.0.0.1:\($0)/" }.joined(separator: ",")
                let stack = try await HeraldStack.start(amqpURL: url, quorumReplicas: 3)
                do {
                    try await Self.run(stack, directory: directory)
                    try await stack.stop()
                } catch {
                    await stack.discard()
                    throw error
                }
            } catch {
                try? await Self.cluster("stop_cluster", directory)
                throw error
            }
            try await Self.cluster("stop_cluster", directory)
        }

        static func run(_ stack: HeraldStack, directory: URL) async throws {
            for user in 0..<users {
                try await stack.expectOK("PUT", "/devices/cluster-\(user)", ["platform": "fcm", "token": "cluster-token-\(user)", "os": "android", "userId": "cluster-\(user)"])
            }
            let clock = ContinuousClock()
            let start = clock.now
            var stopped = false
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<events {
                    try await clock.sleep(until: start + .seconds(Double(n) / rate))
                    if !stopped, n >= events / 3 {
                        // Node 1 (every connection's first address) stops, as a crashed machine would.
                        stopped = true
                        group.addTask { try await Self.cluster("stop_node", directory, ["1"]) }
                    }
                    group.addTask {
                        try await stack.postEvent([
                            "id": "cluster-\(n)", "source": "api", "kind": "note", "audience": ["users": ["cluster-\(n % users)"]], "data": ["n": "\(n)"],
                        ])
                    }
                }
                try await group.waitForAll()
            }
            let posted = clock.now - start
            @Sendable func delivered() -> [String: Int] {
                Dictionary(grouping: stack.sandbox.state.messages(provider: "fcm", limit: 50_000).compactMap(\.eventId), by: { $0 }).mapValues(\.count)
            }
            do {
                try await eventually(timeout: .seconds(300), "a push for every accepted event") {
                    delivered().keys.filter { $0.hasPrefix("api:cluster-") }.count == events
                }
            } catch {
                // Where the missing events stopped: their deliveries as the gateway reports them,
                // and what each service logged above info.
                let missing = (0..<events).map { "api:cluster-\($0)" }.filter { delivered()[$0] == nil }
                for eventId in missing.prefix(5) {
                    print("cluster: \(eventId) not pushed; deliveries: \(await stack.deliveries(of: String(eventId.dropFirst(4))))")
                }
                for service in stack.services {
                    let lines = service.logText().split(separator: "\n").filter { !$0.contains("\"level\":\"info\"") && !$0.contains(" info ") }
                    print("cluster: \(service.name) logged \(lines.count) lines above info; the last ones:\n" + lines.suffix(15).joined(separator: "\n"))
                }
                throw TestFailure("\(missing.count) of \(events) accepted events not pushed after 300 s (first: \(missing.prefix(10).joined(separator: ", ")))")
            }
            let pushes = delivered().filter { $0.key.hasPrefix("api:cluster-") }
            let duplicates = pushes.values.reduce(0, +) - pushes.count
            print("cluster: \(events) events accepted in \(posted), node 1 stopped after \(events / 3); \(pushes.count) delivered, 0 lost, \(duplicates) pushed twice")
            #expect(pushes.count == events, "lost: \(events - pushes.count)")
        }
    }
}
