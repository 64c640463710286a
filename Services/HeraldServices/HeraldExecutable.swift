import DispatchKit
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources

/// A Herald service the multi-call `herald` runs, by the name it is called as
/// (`herald-gateway`, a link to it) or its first argument (`herald herald-gateway`). The four
/// pipeline services are listed here; a dispatcher follows from each provider of
/// `HeraldProviders.dispatchers`, so a new provider brings its executable with it.
public struct HeraldExecutable: Sendable {
    public enum Kind: String, Sendable {
        /// One of the pipeline's own services (gateway, registration, preferences, encryption).
        case service
        /// A provider's dispatcher: consumes `dispatch.<platform>`.
        case dispatcher
    }

    public let name: String
    public let kind: Kind
    /// `HERALD_HTTP_PORT`'s default: health and metrics (and the gateway's public API).
    public let defaultPort: Int
    /// `HERALD_OPS_PORT`'s default, for a service with a public API (the gateway).
    public let defaultOpsPort: Int?
    /// The platform a dispatcher serves.
    public let platform: Platform?
    /// Whether it keeps data of its own (a store: SQLite on a volume, or PostgreSQL).
    public let stateful: Bool
    /// What it does, in a sentence (`herald --help`, the manifest).
    public let summary: String
    private let body: @Sendable (HeraldExecutable) async -> Void

    init(name: String, kind: Kind = .service, defaultPort: Int, defaultOpsPort: Int? = nil, platform: Platform? = nil,
         stateful: Bool = false, summary: String, body: @escaping @Sendable (HeraldExecutable) async -> Void) {
        self.name = name
        self.kind = kind
        self.defaultPort = defaultPort
        self.defaultOpsPort = defaultOpsPort
        self.platform = platform
        self.stateful = stateful
        self.summary = summary
        self.body = body
    }

    /// Runs the service until SIGTERM or SIGINT; exits the process on a configuration error.
    public func main() async { await body(self) }

    /// Every executable: the pipeline's services, then a dispatcher per provider.
    public static let all: [HeraldExecutable] = services + HeraldProviders.dispatchers.map(dispatcher)

    /// The executable called `name`, if there is one.
    public static func named(_ name: String) -> HeraldExecutable? { all.first { $0.name == name } }

    static let services: [HeraldExecutable] = [
        HeraldExecutable(
            name: "herald-gateway", defaultPort: 8080, defaultOpsPort: 9080,
            summary: "the public HTTP API: publishes events with confirms, sends device, preference and settings requests to Registration and Preferences as AMQP RPC, serves the console on the ops port",
            body: GatewayService.main),
        HeraldExecutable(
            name: "herald-registration", defaultPort: 8081, stateful: true,
            summary: "keeps the devices: resolves each event into one delivery per device, applies token revocations, records outcomes, answers device, key and sponsee commands",
            body: RegistrationService.main),
        HeraldExecutable(
            name: "herald-preferences", defaultPort: 8082, stateful: true,
            summary: "decides for each delivery whether the user wants it (network, user, channel, kind and device rules), answers preference commands",
            body: PreferencesService.main),
        HeraldExecutable(
            name: "herald-encryption", defaultPort: 8083,
            summary: "renders, encrypts and sizes each allowed delivery for its provider and publishes the dispatch request",
            body: EncryptionService.main),
    ]

    /// A provider's dispatcher: its descriptor on DispatchKit's stage.
    static func dispatcher(_ provider: any DispatchProvider) -> HeraldExecutable {
        HeraldExecutable(
            name: provider.executableName, kind: .dispatcher, defaultPort: provider.defaultPort, platform: provider.platform,
            summary: provider.summary
        ) { _ in await DispatcherService.main(provider, registry: .herald, sources: .herald) }
    }
}
