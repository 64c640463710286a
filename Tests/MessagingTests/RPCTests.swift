import Foundation
import Messaging
import HeraldTestSupport
import Testing

@Suite("Request/reply", .needs(.broker))
struct RPCTests {
    struct Ping: Codable, Sendable { var text: String }
    struct Pong: Codable, Sendable { var echo: String; var length: Int }

    static func commandQueue() -> QueueSpec {
        QueueSpec("test.rpc.\(UUID().uuidString.prefix(8))", kind: .classic, durable: false, autoDelete: true)
    }

    struct BadPing: Error {}

    @Test("a call is answered with the reply of its own correlation id; a failing handler with its error reply")
    func roundTrip() async throws {
        let queue = Self.commandQueue()
        let topology = AMQPTopology(queues: [queue])
        let publisher = Publisher(configuration: TestBroker.configuration("rpc-replies", topology: topology))
        let server = RPCServer(
            configuration: TestBroker.configuration("rpc-server", topology: topology), queue: queue.name, publisher: publisher,
            errorReply: { _ in RPCReply(type: "test.error.v1", body: Data("{}".utf8)) }
        ) { request in
            let ping = try JSONDecoder().decode(Ping.self, from: request.body)
            if ping.text == "fail" { throw BadPing() }
            return RPCReply(type: "test.pong.v1", body: try JSONEncoder().encode(Pong(echo: ping.text, length: ping.text.count)))
        }
        let serving = Task { await server.run() }
        #expect(await server.waitUntilConnected(timeout: .seconds(20)))
        let client = RPCClient(configuration: TestBroker.configuration("rpc-client"))

        func ping(_ text: String) async throws -> ReceivedMessage {
            try await client.call(queue: queue.name, type: "test.ping.v1", body: JSONEncoder().encode(Ping(text: text)), timeout: .seconds(30))
        }
        async let a = ping("hello")
        async let b = ping("herald!")
        let (replyA, replyB) = try await (a, b)
        let pongA = try JSONDecoder().decode(Pong.self, from: replyA.body)
        let pongB = try JSONDecoder().decode(Pong.self, from: replyB.body)
        #expect(replyA.properties.type == "test.pong.v1")
        #expect(pongA.echo == "hello" && pongA.length == 5)
        #expect(pongB.echo == "herald!" && pongB.length == 7)

        let failed = try await ping("fail")
        #expect(failed.properties.type == "test.error.v1")

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

@Suite("Request/reply lifetimes", .needs(.broker))
struct RPCLifetimeTests {
    @Test("a cancelled call ends at once instead of waiting for a reply that will not come")
    func cancelledCallEnds() async throws {
        let queue = RPCTests.commandQueue()
        let admin = Publisher(configuration: TestBroker.configuration("rpc-declare", topology: AMQPTopology(queues: [queue])))
        #expect(await admin.waitUntilConnected(timeout: .seconds(20)))
        let client = RPCClient(configuration: TestBroker.configuration("rpc-client"))
        #expect(await client.waitUntilConnected(timeout: .seconds(20)))
        let ended = Completion<String>()
        let call = Task {
            do {
                _ = try await client.call(queue: queue.name, type: "test.ping.v1", body: Data("{}".utf8), timeout: .seconds(600))
                await ended.set("answered")
            } catch {
                await ended.set("\(type(of: error))")
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        let how = try await ended.value(within: .seconds(20), "the cancelled call to end")
        #expect(how == "CancellationError")
        await client.close()
        await admin.close()
    }

    @Test("a closed client is released: the client and its connection do not hold each other")
    func closedClientIsReleased() async throws {
        let released = WeakReference()
        do {
            let client = RPCClient(configuration: TestBroker.configuration("rpc-release"))
            #expect(await client.waitUntilConnected(timeout: .seconds(20)))
            released.object = client
            await client.close()
        }
        try await eventually(timeout: .seconds(20), "the closed RPC client to be released") { released.object == nil }
    }
}

/// Sees whether an object was released, without keeping it.
final class WeakReference: @unchecked Sendable {
    weak var object: AnyObject?
}
