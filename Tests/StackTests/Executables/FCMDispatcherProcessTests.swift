import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import HeraldStackTestSupport
import Messaging
import ServiceKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ServiceProcesses {
    @Suite("herald-fcm processes")
    struct FCMDispatcherProcessTests {
        @Test func threeDispatchersShareTheQueueAndAKillMinus9LosesNoDelivery() async throws {
            let sandbox = try await TestSandbox.start()
            let app = "kill-\(UUID().uuidString.prefix(6))"
            let config = try sandbox.writeAppsYAML(app: app)
            try await TestBroker.admin.purge(HeraldTopology.Queue.dispatch(.fcm).name)
            let dispatchers = try (0..<3).map { _ in try ServiceProcess("herald-fcm", environment: ["HERALD_CONFIG": config, "HERALD_LOG_LEVEL": "warning"]) }
            defer { dispatchers.forEach { $0.discard() } }
            for dispatcher in dispatchers { try await dispatcher.waitUntilReady() }

            // Each send takes 500 ms at the sandbox, so every dispatcher holds sends in flight.
            let count = 900
            let publisher = Publisher(configuration: TestBroker.configuration("kill-test", topology: HeraldTopology.all(.herald)))
            let requests = (0..<count).map { TestSandbox.request(token: "slow-500-k\($0)", app: app, id: "\(app)-\($0)") }
            try await publisher.publish(contentsOf: requests.map {
                try OutgoingMessage(contract: $0, exchange: HeraldTopology.Exchange.dispatch.name, routingKey: "fcm", mandatory: true)
            })
            await publisher.close()

            try await eventually("a third of the deliveries") { sandbox.state.messages(provider: "fcm", limit: 10_000).count >= count / 3 }
            dispatchers[0].killHard()
            try await eventually(timeout: .seconds(90), "every delivery at least once") {
                Set(sandbox.state.messages(provider: "fcm", limit: 10_000).map(\.token)).count == count
            }
            // The survivors finish what they hold; then nothing more arrives.
            for dispatcher in dispatchers.dropFirst() { try await dispatcher.terminate() }
            let received = sandbox.state.messages(provider: "fcm", limit: 10_000).map(\.token)
            let perToken = Dictionary(grouping: received, by: { $0 }).mapValues(\.count)
            let duplicates = received.count - count
            print("herald-fcm kill -9 test: \(count) deliveries, \(received.count) sends, \(duplicates) duplicates")
            #expect(Set(received) == Set(requests.map(\.token)))
            #expect(perToken.values.allSatisfy { $0 <= 2 }, "only a send in flight at the kill is repeated, once")
            #expect(duplicates <= 200, "duplicates are bounded by the killed process's prefetch (200): \(duplicates)")
            #expect(dispatchers.dropFirst().allSatisfy { $0.process.terminationStatus == 0 })
            #expect(try await TestBroker.admin.readyCount(HeraldTopology.Queue.dispatch(.fcm).name) == 0)
            await sandbox.stop()
        }
    }
}
