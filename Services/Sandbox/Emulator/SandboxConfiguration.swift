import Foundation

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
/// | `HERALD_SANDBOX_INBOX_CAPACITY` | `10000` | accepted messages kept (oldest dropped first) |
/// | `HERALD_SANDBOX_TOKEN_LIFETIME` | `3600` | seconds an issued access token is valid |
public struct SandboxConfiguration: Sendable {
    public var httpsPort: Int?
    public var httpsHost: String
    public var hostnames: [String]
    public var directory: URL?
    public var serviceAccounts: [ServiceAccount]
    public var hmsClients: [HMSClient]
    /// Generate a demo FCM service account and HMS client and write them to `directory`.
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

    public init(
        httpsPort: Int? = 8443, httpsHost: String = "0.0.0.0", hostnames: [String] = [], directory: URL? = nil,
        serviceAccounts: [ServiceAccount] = [], hmsClients: [HMSClient] = [], demoCredentials: Bool = true,
        inboxCapacity: Int = 10_000, tokenLifetime: TimeInterval = 3600
    ) {
        self.httpsPort = httpsPort
        self.httpsHost = httpsHost
        self.hostnames = hostnames
        self.directory = directory
        self.serviceAccounts = serviceAccounts
        self.hmsClients = hmsClients
        self.demoCredentials = demoCredentials
        self.inboxCapacity = inboxCapacity
        self.tokenLifetime = tokenLifetime
    }

    public static func fromEnvironment(_ environment: [String: String], dataDirectory: URL, httpHost: String) throws -> SandboxConfiguration {
        func value(_ key: String) -> String? {
            guard let text = environment[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        func list(_ key: String) -> [String] {
            value(key)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        }
        var configuration = SandboxConfiguration(httpsHost: httpHost)
        if let port = value("HERALD_SANDBOX_HTTPS_PORT") {
            if port.lowercased() == "off" {
                configuration.httpsPort = nil
            } else {
                guard let number = Int(port), (0...65535).contains(number) else {
                    throw SandboxError("HERALD_SANDBOX_HTTPS_PORT: \"\(port)\" is not a port number or off")
                }
                configuration.httpsPort = number
            }
        }
        configuration.hostnames = list("HERALD_SANDBOX_HOSTNAMES")
        configuration.directory = value("HERALD_SANDBOX_DIR").map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? dataDirectory.appendingPathComponent("sandbox", isDirectory: true)
        configuration.serviceAccounts = try list("HERALD_SANDBOX_FCM_ACCOUNTS").map { path in
            do {
                return try ServiceAccount.load(from: URL(fileURLWithPath: path))
            } catch {
                throw SandboxError("HERALD_SANDBOX_FCM_ACCOUNTS: cannot read \(path): \(error)")
            }
        }
        if let capacity = value("HERALD_SANDBOX_INBOX_CAPACITY") {
            guard let number = Int(capacity), number > 0 else { throw SandboxError("HERALD_SANDBOX_INBOX_CAPACITY: \"\(capacity)\" is not a positive number") }
            configuration.inboxCapacity = number
        }
        if let lifetime = value("HERALD_SANDBOX_TOKEN_LIFETIME") {
            guard let seconds = Double(lifetime), seconds > 0 else { throw SandboxError("HERALD_SANDBOX_TOKEN_LIFETIME: \"\(lifetime)\" is not a positive number of seconds") }
            configuration.tokenLifetime = seconds
        }
        return configuration
    }
}
