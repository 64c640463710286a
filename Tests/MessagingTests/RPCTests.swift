import Foundation
import HeraldModel
import Messaging
import HeraldTestSupport
import Testing

@Suite("Request/reply", .enabled(if: TestBroker.shouldRun))
struct RPCTests {
    struct Ping: Codable, Sendable { var text: String }
    struct Pong: Codable, Sendable { var echo: String; var length: Int }

    static func commandQueue() -> QueueSpec {
        QueueSpec("test.rpc.\(UUID().uuidString.prefix(8))", kind: .classic, durable: false, autoDelete: true)
    }

    @Test("a call is answered with the reply of its own correlation id")
    func roundTrip() async throws {
        let queue = Self.commandQueue()
        let topology = AMQPTopology(queues: [queue])
        let publisher = Publisher(configuration: TestBroker.configuration("rpc-replies", topology: topology))
        let server = RPCServer(configuration: TestBroker.configuration("rpc-server", topology: topology), queue: queue.name, publisher: publisher) { request in
            let ping = try HeraldJSON.decode(Ping.self, from: request.body)
            if ping.text == "fail" { throw CommandError(code: "bad-ping", detail: "fail is not a ping", status: 422) }
            return try .encoding(Pong(echo: ping.text, length: ping.text.count), type: "test.pong.v1")
        }
        let serving = Task { await server.run() }
        #expect(await server.waitUntilConnected(timeout: .seconds(10)))
        let client = RPCClient(configuration: TestBroker.configuration("rpc-client"))

        async let a = client.call(Ping(text: "hello"), type: "test.ping.v1", queue: queue.name, expecting: Pong.self)
        async let b = client.call(Ping(text: "herald!"), type: "test.ping.v1", queue: queue.name, expecting: Pong.self)
        let (pongA, pongB) = try await (a, b)
        #expect(pongA.echo == "hello" && pongA.length == 5)
        #expect(pongB.echo == "herald!" && pongB.length == 7)

        let error = await #expect(throws: CommandError.self) {
            _ = try await client.call(Ping(text: "fail"), type: "test.ping.v1", queue: queue.name, expecting: Pong.self)
        }
        #expect(error == CommandError(code: "bad-ping", detail: "fail is not a ping", status: 422))

        server.stop()
        await serving.value
        await client.close()
        await publisher.close()
    }

    @Test("a call nobody answers fails with a timeout")
    func timeout() async throws {
        let queue = Self.commandQueue()
        let admin = Publisher(configuration: TestBroker.configuration("rpc-declare", topology: AMQPTopology(queues: [queue])))
        #expect(await admin.waitUntilConnected(timeout: .seconds(10)))
        let client = RPCClient(configuration: TestBroker.configuration("rpc-client"))
        let started = ContinuousClock.now
        let error = await #expect(throws: MessagingError.self) {
            _ = try await client.call(queue: queue.name, type: "test.ping.v1", body: Data("{}".utf8), timeout: .milliseconds(400))
        }
        #expect(error?.reason == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        await client.close()
        await admin.close()
    }

    @Test("a call to a queue that does not exist fails at once as unroutable")
    func unroutable() async throws {
        let client = RPCClient(configuration: TestBroker.configuration("rpc-client"))
        let error = await #expect(throws: MessagingError.self) {
            _ = try await client.call(queue: "test.nobody.\(UUID())", type: "test.ping.v1", body: Data("{}".utf8), timeout: .seconds(30))
        }
        #expect(error?.reason == .unroutable)
        await client.close()
    }
}
