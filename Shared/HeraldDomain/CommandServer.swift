import HeraldModel
import Messaging
import ServiceKit
import ServiceLifecycle

/// Serves RPC commands from a command queue as part of a service: requests are handled
/// concurrently (up to `prefetch`), each answered on its `reply_to` and then acknowledged.
/// Ready while its consumer is connected; on graceful shutdown it stops taking requests and
/// answers those it holds.
public struct CommandServer: Service {
    public let queue: QueueSpec
    private let server: RPCServer
    private let runtime: ServiceRuntime

    public init(queue: QueueSpec, prefetch: UInt16 = 32, runtime: ServiceRuntime, handler: @escaping RPCServer.Handler) {
        self.queue = queue
        self.runtime = runtime
        server = RPCServer(
            configuration: runtime.connection("commands:\(queue.name)"), queue: queue.name,
            prefetch: prefetch, publisher: runtime.requirePublisher, errorReply: { error in
                if !(error is CommandError) {
                    runtime.logger.error("command failed", metadata: ["queue": "\(queue.name)", "error": "\(error)"])
                }
                return RPCReply.commandError(error)
            }, handler: handler)
        runtime.readiness.register("commands:\(queue.name)") { [server] in server.isConnected }
    }

    public func run() async throws {
        defer { runtime.readiness.remove("commands:\(queue.name)") }
        await withGracefulShutdownHandler {
            await server.run()
        } onGracefulShutdown: {
            server.stop()
        }
    }
}

extension ReceivedMessage {
    /// Decodes an RPC command of type `name` for a command handler, as the typed errors the
    /// caller gets back: `unknown-command` for another type, `invalid-command` naming the
    /// field for a body that does not decode.
    public func command<C: Decodable>(_ type: C.Type, named name: String) throws -> C {
        guard properties.type == name else {
            throw CommandError(code: "unknown-command", detail: "expected a \(name), got \(properties.type ?? "no type")")
        }
        do {
            return try HeraldJSON.decode(C.self, from: body)
        } catch let error as DecodingError {
            throw CommandError(code: "invalid-command", detail: HeraldJSON.describe(error))
        }
    }
}
