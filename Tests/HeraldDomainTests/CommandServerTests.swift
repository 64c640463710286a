import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import Testing

@Suite("Serving RPC commands in a service", .needs(.broker))
struct CommandServerTests {
    struct Lookup: Codable, Sendable { var deviceId: String }
    struct Found: Codable, Sendable { var deviceId: String; var platform: Platform }

    @Test("a command server answers typed replies and typed errors, reports readiness, and stops gracefully")
    func answersAndStops() async throws {
        let queue = QueueSpec("test.commands.\(UUID().uuidString.prefix(8))", kind: .classic, durable: false, autoDelete: true)
        let runtime = try ServiceRuntime(
            name: "test-commands", defaultPort: 0,
            environment: ["HERALD_AMQP_URL": TestBroker.urlString, "HERALD_LOG_LEVEL": "critical"],
            topology: AMQPTopology(queues: [queue]))
        let server = CommandServer(queue: queue, runtime: runtime) { request in
            let lookup = try HeraldJSON.decode(Lookup.self, from: request.body)
            guard lookup.deviceId == "d1" else {
                throw CommandError(code: "device-not-found", detail: "no device \(lookup.deviceId)", status: 404)
            }
            return try .encoding(Found(deviceId: "d1", platform: .fcm), type: "test.found.v1")
        }
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await eventually("the command server to be ready") { runtime.readiness.isReady }
        #expect(runtime.readiness.evaluate().map(\.name).contains("commands:\(queue.name)"))

        let client = try await TestBroker.connectedRPCClient("commands-client")
        let found = try await client.call(Lookup(deviceId: "d1"), type: "test.lookup.v1", queue: queue.name, expecting: Found.self, timeout: TestBroker.rpcTimeout)
        #expect(found.deviceId == "d1" && found.platform == .fcm)
        await #expect(throws: CommandError(code: "device-not-found", detail: "no device d2", status: 404)) {
            _ = try await client.call(Lookup(deviceId: "d2"), type: "test.lookup.v1", queue: queue.name, expecting: Found.self, timeout: TestBroker.rpcTimeout)
        }

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!runtime.readiness.evaluate().map(\.name).contains("commands:\(queue.name)"))
        await client.close()
        await runtime.requirePublisher.close()
    }
}
