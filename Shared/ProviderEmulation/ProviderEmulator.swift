import Foundation
import HeraldModel

/// A provider's stand-in inside herald-sandbox: the routes it answers as the real service
/// does, and the demo credentials it hands a local stack. A provider's `Emulation` module
/// offers one through its `EmulatedProvider`; the sandbox routes to every one `HeraldEmulators`
/// lists and names none itself.
public protocol ProviderEmulator: Sendable {
    /// The provider's name in the inbox, the metrics and `/sandbox/messages?provider=`.
    var provider: String { get }
    /// What it serves, Hummingbird-style paths (`/push/:subscription`).
    var routes: [SandboxRoute] { get }
    /// Answers a request on one of `routes`; `parameters` holds the path's `:name` captures.
    func handle(_ request: SandboxRequest, route: SandboxRoute, parameters: [String: String]) -> SandboxReply
    /// The files `scripts/run` and compose read from the sandbox's directory (name → contents),
    /// when the sandbox makes demo credentials; written again after `listening`.
    func demoFiles() -> [String: Data]
    /// What `GET /sandbox/credentials` shows of the demo credentials (a sandbox's keys sign
    /// nothing real), e.g. `["hmsClient": […]]`.
    func demoCredentials() -> [String: Any]
    /// The sandbox listens on `port` (`scheme` http or https), as `hosts` name it.
    func listening(scheme: String, port: Int, hosts: [String])
}

extension ProviderEmulator {
    public func demoFiles() -> [String: Data] { [:] }
    public func demoCredentials() -> [String: Any] { [:] }
    public func listening(scheme: String, port: Int, hosts: [String]) {}
}

/// One method and path an emulator serves.
public struct SandboxRoute: Sendable, Hashable {
    public var method: String
    public var path: String

    public init(_ method: String, _ path: String) {
        self.method = method
        self.path = path
    }

    /// The `:name` captures when `path` (without its query) matches, else nil.
    public func match(method: String, path: String) -> [String: String]? {
        guard self.method == "*" || method == self.method else { return nil }
        let pattern = self.path.split(separator: "/", omittingEmptySubsequences: true)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard pattern.count == segments.count else { return nil }
        var captures: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            if expected.first == ":" {
                captures[String(expected.dropFirst())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return captures
    }
}

/// What an emulator is made with: the sandbox's shared state and metrics, and how it runs.
public struct EmulatorContext: Sendable {
    public var state: SandboxState
    public var metrics: SandboxMetrics
    /// The names the sandbox's certificate covers besides localhost (e.g. `herald-sandbox`).
    public var hostnames: [String]
    /// The HTTPS port, when the sandbox serves HTTPS.
    public var httpsPort: Int?
    /// Whether to make demo credentials for a local stack.
    public var demoCredentials: Bool
    /// Seconds an issued access token is valid.
    public var tokenLifetime: TimeInterval
    /// The `HERALD_SANDBOX_*` variables, for an emulator's own settings.
    public var environment: [String: String]
    /// Credentials given in code (a test's service account, client or key), each emulator
    /// taking those of its own types.
    public var credentials: [any Sendable]

    public init(
        state: SandboxState, metrics: SandboxMetrics, hostnames: [String] = [], httpsPort: Int? = nil,
        demoCredentials: Bool = false, tokenLifetime: TimeInterval = 3600, environment: [String: String] = [:],
        credentials: [any Sendable] = []
    ) {
        self.state = state
        self.metrics = metrics
        self.hostnames = hostnames
        self.httpsPort = httpsPort
        self.demoCredentials = demoCredentials
        self.tokenLifetime = tokenLifetime
        self.environment = environment
        self.credentials = credentials
    }
}

/// A provider's sandbox emulator and how the demo stack's app sends through it: each
/// `Providers/<Module>/Emulation` module's descriptor, `Emulated<Module>()`. `herald-sandbox
/// --manifest` prints the demo declarations, from which `scripts/generate` writes the demo
/// app's sections (compose's deploy/herald.yaml, scripts/run's apps file) and the lines
/// scripts/run prints.
public protocol EmulatedProvider: Sendable {
    /// The platform it emulates the service of.
    var platform: Platform { get }
    func makeEmulator(_ context: EmulatorContext) throws -> any ProviderEmulator
    /// The demo app's settings section for this provider when it sends through the sandbox,
    /// in order: strings, numbers or booleans. Strings may name `${sandboxDir}` (where the sandbox writes its demo files)
    /// and `${sandboxURL}` (its HTTPS origin).
    var demoSettings: KeyValuePairs<String, any Sendable> { get }
    /// What scripts/run prints to try the emulator (`${sandbox}` is the sandbox's plain HTTP
    /// origin), if anything beyond the inbox.
    var demoHint: String? { get }
}

extension EmulatedProvider {
    public var demoHint: String? { nil }

    /// What the manifest says of it: the platform, the demo app's settings (in order) and hint.
    public var manifestEntry: [String: Any] {
        var entry: [String: Any] = ["platform": platform.rawValue, "settings": demoSettings.map { [$0.key, $0.value] as [Any] }]
        entry["hint"] = demoHint
        return entry
    }
}
