import Foundation
import ServiceKit

/// How the sandbox runs: its HTTPS port, the names its certificate covers, the credentials
/// its emulators accept besides their demo ones, and where it writes its CA and demo
/// credentials.
///
/// From the environment (`fromEnvironment`):
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HERALD_SANDBOX_HTTPS_PORT` | `8443` | HTTPS with HTTP/2 (ALPN); `off` disables it |
/// | `HERALD_SANDBOX_HOSTNAMES` | none | extra names (comma-separated) the certificate covers, e.g. `herald-sandbox` |
/// | `HERALD_SANDBOX_DIR` | `$HERALD_DATA_DIR/sandbox` | where `ca.pem`, the server certificate and the demo credentials are written |
/// | `HERALD_SANDBOX_INBOX_CAPACITY` | `10000` | accepted messages kept (oldest dropped first) |
/// | `HERALD_SANDBOX_TOKEN_LIFETIME` | `3600` | seconds an issued access token is valid |
///
/// Every `HERALD_SANDBOX_*` variable also reaches the emulators, which read their own (FCM's
/// `HERALD_SANDBOX_FCM_ACCOUNTS`, APNs' `HERALD_SANDBOX_APNS_KEYS`; see docs/configuration.md).
public struct SandboxConfiguration: Sendable {
    public var httpsPort: Int?
    public var httpsHost: String
    public var hostnames: [String]
    public var directory: URL?
    /// Credentials the emulators accept besides their demo ones (an FCM `ServiceAccount`, an
    /// `HMSEmulator.Client`, an `APNsEmulator.SigningKey`, …): each takes those of its types.
    public var credentials: [any Sendable]
    /// Make each emulator's demo credentials and write them to `directory`.
    public var demoCredentials: Bool
    public var inboxCapacity: Int
    public var tokenLifetime: TimeInterval
    /// The `HERALD_SANDBOX_*` variables, for the emulators' own settings.
    public var environment: [String: String]

    public init(
        httpsPort: Int? = 8443, httpsHost: String = "0.0.0.0", hostnames: [String] = [], directory: URL? = nil,
        credentials: [any Sendable] = [], demoCredentials: Bool = true,
        inboxCapacity: Int = 10_000, tokenLifetime: TimeInterval = 3600, environment: [String: String] = [:]
    ) {
        self.httpsPort = httpsPort
        self.httpsHost = httpsHost
        self.hostnames = hostnames
        self.directory = directory
        self.credentials = credentials
        self.demoCredentials = demoCredentials
        self.inboxCapacity = inboxCapacity
        self.tokenLifetime = tokenLifetime
        self.environment = environment
    }

    /// Reads the `HERALD_SANDBOX_*` variables; problems are `ConfigurationError`s naming the variable.
    public static func fromEnvironment(_ environment: [String: String], dataDirectory: URL, httpHost: String) throws -> SandboxConfiguration {
        let reader = EnvironmentReader(environment)
        var configuration = SandboxConfiguration(httpsHost: httpHost)
        if reader.string("HERALD_SANDBOX_HTTPS_PORT")?.lowercased() == "off" {
            configuration.httpsPort = nil
        } else if let port = try reader.parse("HERALD_SANDBOX_HTTPS_PORT", expected: "a port number (0-65535) or off", {
            Int($0).flatMap { (0...65535).contains($0) ? $0 : nil }
        }) {
            configuration.httpsPort = port
        }
        configuration.hostnames = reader.list("HERALD_SANDBOX_HOSTNAMES")
        configuration.directory = reader.string("HERALD_SANDBOX_DIR").map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? dataDirectory.appendingPathComponent("sandbox", isDirectory: true)
        configuration.inboxCapacity = try reader.parse("HERALD_SANDBOX_INBOX_CAPACITY", expected: "a positive number") {
            Int($0).flatMap { $0 > 0 ? $0 : nil }
        } ?? configuration.inboxCapacity
        configuration.tokenLifetime = try reader.parse("HERALD_SANDBOX_TOKEN_LIFETIME", expected: "a positive number of seconds") {
            Double($0).flatMap { $0 > 0 ? $0 : nil }
        } ?? configuration.tokenLifetime
        configuration.environment = environment.filter { $0.key.hasPrefix("HERALD_SANDBOX_") }
        return configuration
    }
}
