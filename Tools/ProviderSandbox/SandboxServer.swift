import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// Serves a `Sandbox` over plain HTTP/1.1 and over HTTPS with HTTP/2 (ALPN `h2`, falling
/// back to `http/1.1`) on its self-signed certificate.
public enum SandboxServer {
    /// The HTTPS side (HTTP/2 or HTTP/1.1 by ALPN), as a service of a `ServiceGroup`.
    public static func https(
        _ sandbox: Sandbox, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        SandboxTLSServer(sandbox: sandbox, host: host, port: port, logger: logger, onRunning: onRunning)
    }

    /// The plain HTTP application (HTTP/1.1), as a service of a `ServiceGroup`.
    public static func http(
        _ sandbox: Sandbox, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        let router = Router()
        sandbox.addRoutes(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "herald-sandbox"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                sandbox.listening(scheme: "http", port: bound)
                await onRunning(bound)
            },
            logger: logger)
    }
}

/// A sandbox running in-process on ephemeral ports, for tests: `start()`, use the ports, `stop()`.
public final class RunningSandbox: Sendable {
    public let sandbox: Sandbox
    public let httpPort: Int
    public let httpsPort: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts HTTP and HTTPS on free ports of 127.0.0.1 and returns once both listen.
    public static func start(configuration: SandboxConfiguration = SandboxConfiguration(httpsPort: 0), logger: Logger = Logger(label: "herald.sandbox")) async throws -> RunningSandbox {
        let sandbox = try Sandbox(configuration: configuration, logger: logger)
        let ports = PortWaiter()
        let http = SandboxServer.http(sandbox, host: "127.0.0.1", port: 0, logger: logger) { await ports.set(\.http, $0) }
        let https = SandboxServer.https(sandbox, host: "127.0.0.1", port: 0, logger: logger) { await ports.set(\.https, $0) }
        let group = ServiceGroup(services: [http, https], logger: logger)
        let task = Task { try await group.run() }
        let httpPort: Int, httpsPort: Int
        do {
            (httpPort, httpsPort) = try await ports.wait(task: task)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        return RunningSandbox(sandbox: sandbox, httpPort: httpPort, httpsPort: httpsPort, group: group, task: task)
    }

    private init(sandbox: Sandbox, httpPort: Int, httpsPort: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.sandbox = sandbox
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.group = group
        self.task = task
    }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// Waits until both servers report their ports.
private actor PortWaiter {
    struct Ports {
        var http: Int?
        var https: Int?
    }

    private var ports = Ports()

    func set(_ key: WritableKeyPath<Ports, Int?>, _ port: Int) {
        ports[keyPath: key] = port
    }

    func wait(task: Task<Void, any Error>) async throws -> (Int, Int) {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let http = ports.http, let https = ports.https { return (http, https) }
            if ContinuousClock.now > deadline { throw SandboxError("the sandbox did not start listening within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
