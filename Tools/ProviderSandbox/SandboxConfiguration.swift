import Foundation
import ServiceKit

/// How the sandbox runs: its HTTPS port, the names its certificate covers, the FCM service
/// accounts and HMS clients it accepts, and where it writes its CA and demo credentials.
///
/// From the environment (`fromEnvironment`):
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HERALD_SANDBOX_HTTPS_PORT` | `8443` | HTTPS with HTTP/2 (ALPN); `off` disables it |
/// | `HERALD_SANDBOX_HOSTNAMES` | none | extra names (comma-separated) the certificate covers, e.g. `herald-sandbox` |
/// | `HERALD_SANDBOX_DIR` | `$HERALD_DATA_DIR/sandbox` | where `ca.pem`, the server certificate and the demo credentials are written |
/// | `HERALD_SANDBOX_FCM_ACCOUNTS` | none | service-account files (comma-separated) whose JWTs are accepted, besides the demo account |
/// | `HERALD_SANDBOX_APNS_KEYS` | none | APNs signing keys (comma-separated `<teamId>:<keyId>:<.p8 file>`) whose provider tokens are accepted, besides the demo key |
/// | `HERALD_SANDBOX_INBOX_CAPACITY` | `10000` | accepted messages kept (oldest dropped first) |
/// | `HERALD_SANDBOX_TOKEN_LIFETIME` | `3600` | seconds an issued access token is valid |
public struct SandboxConfiguration: Sendable {
    public var httpsPort: Int?
    public var httpsHost: String
    public var hostnames: [String]
    public var directory: URL?
    public var serviceAccounts: [ServiceAccount]
    public var hmsClients: [HMSClient]
    public var apnsKeys: [APNsKey]
    /// Generate a demo FCM service account, HMS client and APNs key and write them to `directory`.
    public var demoCredentials: Bool
    public var inboxCapacity: Int
    public var tokenLifetime: TimeInterval

    /// An HMS app the sandbox accepts: the client id doubles as the app id, as in Push Kit.
    public struct HMSClient: Codable, Sendable, Hashable {
        public var clientId: String
        public var clientSecret: String
        public init(clientId: String, clientSecret: String) {
            self.clientId = clientId
            self.clientSecret = clientSecret
        }
    }

    /// An APNs signing key the sandbox accepts provider tokens of: the team, the key id and
    /// the key (the `.p8`, a P-256 private key in PEM; only its public half is used).
    public struct APNsKey: Sendable, Hashable {
        public var teamId: String
        public var keyId: String
        public var privateKeyPEM: String
        public init(teamId: String, keyId: String, privateKeyPEM: String) {
            self.teamId = teamId
            self.keyId = keyId
            self.privateKeyPEM = privateKeyPEM
        }
    }

    public init(
        httpsPort: Int? = 8443, httpsHost: String = "0.0.0.0", hostnames: [String] = [], directory: URL? = nil,
        serviceAccounts: [ServiceAccount] = [], hmsClients: [HMSClient] = [], apnsKeys: [APNsKey] = [], demoCredentials: Bool = true,
        inboxCapacity: Int = 10_000, tokenLifetime: TimeInterval = 3600
    ) {
        self.httpsPort = httpsPort
        self.httpsHost = httpsHost
        self.hostnames = hostnames
        self.directory = directory
        self.serviceAccounts = serviceAccounts
        self.hmsClients = hmsClients
        self.apnsKeys = apnsKeys
        self.demoCredentials = demoCredentials
        self.inboxCapacity = inboxCapacity
        self.tokenLifetime = tokenLifetime
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
        configuration.serviceAccounts = try reader.list("HERALD_SANDBOX_FCM_ACCOUNTS").map { path in
            do {
                return try ServiceAccount.load(from: URL(fileURLWithPath: path))
            } catch {
                throw ConfigurationError(.invalidFile, setting: "HERALD_SANDBOX_FCM_ACCOUNTS", "cannot read \(path): \(error)")
            }
        }
        configuration.apnsKeys = try reader.list("HERALD_SANDBOX_APNS_KEYS").map { item in
            let parts = item.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, let pem = FileManager.default.contents(atPath: parts[2]) else {
                throw ConfigurationError(.invalidFile, setting: "HERALD_SANDBOX_APNS_KEYS", "\(item) is not <teamId>:<keyId>:<readable .p8 file>")
            }
            return APNsKey(teamId: parts[0], keyId: parts[1], privateKeyPEM: String(decoding: pem, as: UTF8.self))
        }
        configuration.inboxCapacity = try reader.parse("HERALD_SANDBOX_INBOX_CAPACITY", expected: "a positive number") {
            Int($0).flatMap { $0 > 0 ? $0 : nil }
        } ?? configuration.inboxCapacity
        configuration.tokenLifetime = try reader.parse("HERALD_SANDBOX_TOKEN_LIFETIME", expected: "a positive number of seconds") {
            Double($0).flatMap { $0 > 0 ? $0 : nil }
        } ?? configuration.tokenLifetime
        return configuration
    }
}
