import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// One provider for every app of the configuration: a client per app that has settings for
/// the provider, sharing one transport per CA bundle (so each endpoint gets one HTTP/2
/// connection per transport), and `NOT_CONFIGURED` for a delivery of any other app. The
/// transports are `Service`s: run them in the executable's `ServiceGroup` (as `clients`) so
/// they close on shutdown.
public struct ProviderDispatcher<Client: ProviderClient>: Sendable {
    public let platform: Platform
    public let clients: [String: Client]
    public let transports: [HTTPTransport]

    /// Builds a client for each app `makeClient` returns one for (nil: the app does not use
    /// this provider). `makeClient` gets a transport for a CA bundle (nil: the system's);
    /// its configuration errors stop the service at start, naming the app's setting.
    public init(
        platform: Platform, apps: AppsConfiguration, transport: HTTPTransportConfiguration, logger: Logger,
        makeClient: (_ app: String, _ configuration: AppConfiguration, _ transport: (_ caFile: String?) -> HTTPTransport) throws -> Client?
    ) throws {
        var transports: [String: HTTPTransport] = [:]
        func transportFor(_ caFile: String?) -> HTTPTransport {
            if let existing = transports[caFile ?? ""] { return existing }
            var configuration = transport
            configuration.caFile = caFile
            let made = HTTPTransport(configuration: configuration, logger: logger)
            transports[caFile ?? ""] = made
            return made
        }
        var clients: [String: Client] = [:]
        for (app, configuration) in apps.apps.sorted(by: { $0.key < $1.key }) {
            clients[app] = try makeClient(app, configuration, transportFor)
        }
        self.platform = platform
        self.clients = clients
        self.transports = transports.keys.sorted().map { transports[$0]! }
    }

    /// A dispatcher over clients made elsewhere (tests, benchmarks).
    public init(platform: Platform, clients: [String: Client], transports: [HTTPTransport] = []) {
        self.platform = platform
        self.clients = clients
        self.transports = transports
    }

    /// Sends `batch` (deliveries of any apps) and returns one result per delivery, in order:
    /// each app's part by its client, concurrently.
    public func send(_ batch: [DispatchRequest]) async -> [SendResult] {
        var byApp: [String: [Int]] = [:]
        for (index, request) in batch.enumerated() { byApp[request.app, default: []].append(index) }
        return await BatchParts.send(batch, in: Array(byApp.values)) { part in await self.send(part, app: part[0].app) }
    }

    private func send(_ batch: [DispatchRequest], app: String) async -> [SendResult] {
        guard let client = clients[app] else {
            let result = SendResult.failed(.notConfigured, "app \(app) has no \(platform.rawValue) settings")
            return batch.map { _ in result }
        }
        // Fewer results than deliveries (an adapter's defect) is mended by BatchParts.
        return await client.send(batch)
    }
}
