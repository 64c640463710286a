import Foundation
import HeraldDomain
import HeraldModel
import HeraldEmulators
@_exported import ProviderEmulation
import Logging
import Synchronization

/// The provider sandbox: every provider `HeraldEmulators` lists an emulator of (FCM HTTP v1,
/// Huawei Push Kit, APNs, …) with their authentication, token rules for every provider
/// answer, fault injection, an inbox of what was accepted, and a receiver for tenants'
/// webhooks. The same routes serve plain HTTP/1.1 and HTTPS with HTTP/2 (see `SandboxServer`).
public final class Sandbox: Sendable {
    public let configuration: SandboxConfiguration
    public let state: SandboxState
    public let certificates: SandboxCertificates
    /// The tenant endpoint webhooks are forwarded to: `POST /webhooks/{name}`.
    public let webhooks: WebhookReceiver
    /// The providers' emulators, in `HeraldEmulators`' order.
    public let emulators: [any ProviderEmulator]
    private let metrics = SandboxMetrics()
    private let logger: Logger

    public init(
        configuration: SandboxConfiguration, emulated: [any EmulatedProvider] = HeraldEmulators.all,
        logger: Logger = Logger(label: "herald.sandbox")
    ) throws {
        self.configuration = configuration
        self.logger = logger
        state = SandboxState(inboxCapacity: configuration.inboxCapacity)
        webhooks = WebhookReceiver(capacity: configuration.inboxCapacity)
        certificates = try SandboxCertificates.generate(hostnames: configuration.hostnames)
        let context = EmulatorContext(
            state: state, metrics: metrics, hostnames: configuration.hostnames, httpsPort: configuration.httpsPort,
            demoCredentials: configuration.demoCredentials, tokenLifetime: configuration.tokenLifetime,
            environment: configuration.environment, credentials: configuration.credentials)
        emulators = try emulated.map { try $0.makeEmulator(context) }
        if let directory = configuration.directory {
            try certificates.write(to: directory)
            writeDemoCredentials()
        }
    }

    /// The emulator of type `type`, e.g. to read its demo credentials.
    public func emulator<Emulator: ProviderEmulator>(_ type: Emulator.Type) -> Emulator? {
        emulators.lazy.compactMap { $0 as? Emulator }.first
    }

    /// The providers the inbox can hold messages of.
    public var providerNames: [String] { emulators.map(\.provider) }

    /// Records that the sandbox listens on `port` (`scheme` http or https): emulators learn
    /// the URLs they are reached at (a token endpoint's JWT `aud`, a demo `token_uri`).
    public func listening(scheme: String, port: Int) {
        let hosts = ["localhost", "127.0.0.1"] + configuration.hostnames
        for emulator in emulators { emulator.listening(scheme: scheme, port: port, hosts: hosts) }
        if scheme == "https" { writeDemoCredentials() }
        logger.info("sandbox listening", metadata: ["scheme": "\(scheme)", "port": "\(port)"])
    }

    private func writeDemoCredentials() {
        guard let directory = configuration.directory else { return }
        for emulator in emulators {
            for (name, contents) in emulator.demoFiles() {
                do {
                    try contents.write(to: directory.appendingPathComponent(name), options: .atomic)
                } catch {
                    logger.error("could not write a demo credential", metadata: ["file": "\(directory.appendingPathComponent(name).path)", "error": "\(error)"])
                }
            }
        }
    }

    /// Answers one request: the provider, inbox and admin endpoints. Front ends (plain HTTP
    /// on Hummingbird, HTTPS with HTTP/2 on NIO) only translate to and from this.
    public func handle(_ request: SandboxRequest) -> SandboxReply {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        let admin = SandboxAdmin(sandbox: self)
        for emulator in emulators {
            for route in emulator.routes {
                if let parameters = route.match(method: request.method, path: request.path) {
                    return emulator.handle(request, route: route, parameters: parameters)
                }
            }
        }
        switch (request.method, segments.count) {
        case ("POST", 2) where segments[0] == "webhooks":
            return webhooks.receive(request, name: String(segments[1]))
        case (_, 2) where segments[0] == "sandbox":
            switch (request.method, segments[1]) {
            case ("GET", "messages"): return admin.messages(request)
            case ("DELETE", "messages"): return admin.clear()
            case ("GET", "requests"): return admin.requests(request)
            case ("GET", "receipts"): return admin.receipts(request)
            case ("GET", "webhooks"): return admin.webhooks(request)
            case ("DELETE", "webhooks"): return admin.clearWebhooks()
            case ("GET", "faults"): return admin.faults()
            case ("PUT", "faults"): return admin.setFaults(request)
            case ("DELETE", "faults"): return admin.resetFaults()
            case ("GET", "credentials"): return admin.credentials()
            case ("DELETE", "tokens"): return admin.revokeTokens()
            default: break
            }
        default:
            break
        }
        return admin.problem(404, "no endpoint \(request.method) \(request.path)", title: "Not Found")
    }

    /// The paths `handle` serves, for front ends that route by path.
    public var routes: [SandboxRoute] {
        emulators.flatMap(\.routes) + [
            SandboxRoute("POST", "/webhooks/:name"), SandboxRoute("GET", "/sandbox/webhooks"), SandboxRoute("DELETE", "/sandbox/webhooks"),
            SandboxRoute("GET", "/sandbox/messages"), SandboxRoute("DELETE", "/sandbox/messages"), SandboxRoute("GET", "/sandbox/requests"),
            SandboxRoute("GET", "/sandbox/receipts"), SandboxRoute("GET", "/sandbox/faults"), SandboxRoute("PUT", "/sandbox/faults"),
            SandboxRoute("DELETE", "/sandbox/faults"), SandboxRoute("GET", "/sandbox/credentials"), SandboxRoute("DELETE", "/sandbox/tokens"),
        ]
    }
}
