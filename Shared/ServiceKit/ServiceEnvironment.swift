import Foundation
import Logging
import Messaging

/// The infrastructure settings every service reads from its environment. Defaults run the
/// whole stack on one machine.
///
/// | variable | default |
/// |---|---|
/// | `HERALD_AMQP_URL` | `amqp://guest:guest@localhost:5672/` (several, comma-separated, for a cluster) |
/// | `HERALD_AMQP_PASSWORD_FILE` | none: the URL's password (else the file's, trimmed) |
/// | `HERALD_AMQP_CA_FILE` | none: the system's CAs verify an `amqps://` broker |
/// | `HERALD_AMQP_CERT_FILE`, `HERALD_AMQP_KEY_FILE` | none: no client certificate |
/// | `HERALD_AMQP_VERIFY_HOSTNAME` | `true` |
/// | `HERALD_AMQP_CONFIRM_TIMEOUT` | `30` seconds |
/// | `HERALD_QUORUM_REPLICAS` | none: the broker's default (work queues on every node) |
/// | `HERALD_HTTP_HOST` | `0.0.0.0` |
/// | `HERALD_HTTP_PORT` | the service's own port |
/// | `HERALD_OPS_PORT` | health and metrics of a service with a public API (the gateway: 9080) |
/// | `HERALD_DATA_DIR` | `./data` |
/// | `HERALD_DATABASE_URL` | none: SQLite in the data directory (else `postgres://…`, for Registration and Preferences) |
/// | `HERALD_DATABASE_PASSWORD_FILE` | none: the URL's password (else the file's, trimmed) |
/// | `HERALD_DATABASE_CA_FILE` | none: the system's CAs (for `sslmode=verify-ca`, `verify-full`) |
/// | `HERALD_DATABASE_CERT_FILE`, `HERALD_DATABASE_KEY_FILE` | none: no client certificate |
/// | `HERALD_LOG_LEVEL` | `info` |
/// | `HERALD_LOG_FORMAT` | `json` (or `text`) |
/// | `HERALD_CONFIG` | none: no apps configured |
/// | `HERALD_SHUTDOWN_TIMEOUT` | `30` seconds |
public struct ServiceEnvironment: Sendable {
    /// The broker (the first node of a cluster).
    public var amqpURL: AMQPURL
    /// The cluster's other nodes, tried in turn when a connection fails or is lost.
    public var amqpFailover: [AMQPURL]
    /// `HERALD_AMQP_CONFIRM_TIMEOUT`: how long a publish waits for the broker's confirm
    /// before its connection is replaced and the message published again.
    public var confirmTimeout: Duration
    /// `HERALD_QUORUM_REPLICAS`: on how many cluster nodes each work queue (quorum) and
    /// stream is kept when first declared; nil: the broker's default (all nodes).
    public var quorumReplicas: Int?
    public var httpHost: String
    public var httpPort: Int
    /// `HERALD_OPS_PORT`: where a service with a public API serves health and metrics, if set.
    public var opsPort: Int?
    public var dataDirectory: URL
    /// `HERALD_DATABASE_URL`: the PostgreSQL database of a stateful service; nil keeps its
    /// SQLite files in `dataDirectory`.
    public var databaseURL: String?
    /// The database password from `HERALD_DATABASE_PASSWORD_FILE`, when set (it replaces the URL's).
    public var databasePassword: String?
    /// `HERALD_DATABASE_CA_FILE`: the CA that signed the PostgreSQL server's certificate.
    public var databaseCAFile: String?
    /// `HERALD_DATABASE_CERT_FILE` and `HERALD_DATABASE_KEY_FILE`: a client certificate.
    public var databaseCertificateFile: String?
    public var databaseKeyFile: String?
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var configPath: String?
    /// How long graceful shutdown may take before in-flight work is abandoned to the broker.
    public var shutdownTimeout: Duration

    public enum LogFormat: String, Sendable {
        case json, text
    }

    /// `HERALD_QUORUM_REPLICAS`: how many nodes each quorum queue is declared on. Everything
    /// that declares Herald's topology (the services, heraldctl) must read it alike, or the
    /// broker refuses the second declaration (PRECONDITION_FAILED).
    public static func quorumReplicas(_ reader: EnvironmentReader) throws -> Int? {
        try reader.parse("HERALD_QUORUM_REPLICAS", expected: "a number of nodes from 1 to 99") { Int($0).flatMap { (1...99).contains($0) ? $0 : nil } }
    }

    /// The broker from `HERALD_AMQP_URL`, its password from `HERALD_AMQP_PASSWORD_FILE` when
    /// set: what every service, and `heraldctl`, connects to (the first node of a cluster).
    public static func brokerURL(_ reader: EnvironmentReader) throws -> AMQPURL {
        try brokerURLs(reader)[0]
    }

    /// Every node `HERALD_AMQP_URL` (or `text`, a URL given another way, as heraldctl's
    /// `--amqp-url`) names: one URL, or several separated by commas (or spaces) for a
    /// cluster, tried in turn. `HERALD_AMQP_PASSWORD_FILE` sets the password of each
    /// (of `HERALD_AMQP_URL`'s), and the TLS settings (`brokerTLS`) secure each `amqps://` one.
    public static func brokerURLs(_ reader: EnvironmentReader, text given: String? = nil) throws -> [AMQPURL] {
        let setting = given == nil ? "HERALD_AMQP_URL" : "--amqp-url"
        let text = given ?? reader.string("HERALD_AMQP_URL") ?? "amqp://guest:guest@localhost:5672/"
        let password = given != nil ? nil : try reader.string("HERALD_AMQP_PASSWORD_FILE").map { try SecretFile.text($0, setting: "HERALD_AMQP_PASSWORD_FILE") }
        let tls = try brokerTLS(reader)
        var urls: [AMQPURL] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }) where !item.isEmpty {
            do {
                var url = try AMQPURL(String(item))
                // A secret mounted as a file keeps the password out of the environment.
                if let password { url.password = password }
                if url.tls != nil {
                    url.tls = tls.settings
                } else if let named = tls.named {
                    // Never in clear when the operator meant TLS.
                    throw reader.invalid(named, "is set, but \(setting) names \(url), which is in clear: write amqps:// (port 5671) to use TLS")
                }
                urls.append(url)
            } catch let error as MessagingError {
                throw reader.invalid(setting, urls.isEmpty && !text.contains(",") ? error.message : "\(item): \(error.message)")
            }
        }
        guard !urls.isEmpty else { throw reader.invalid(setting, "names no broker") }
        return urls
    }

    /// How `amqps://` brokers are verified and whom Herald presents itself as:
    /// `HERALD_AMQP_CA_FILE`, `HERALD_AMQP_CERT_FILE` with `HERALD_AMQP_KEY_FILE`, and
    /// `HERALD_AMQP_VERIFY_HOSTNAME`. Each file must be readable now, so a wrong path stops a
    /// service at start rather than at its first connection. `named` is the first of them
    /// set, if any.
    public static func brokerTLS(_ reader: EnvironmentReader) throws -> (settings: AMQPTLS, named: String?) {
        let ca = try reader.readableFile("HERALD_AMQP_CA_FILE")
        let certificate = try reader.readableFile("HERALD_AMQP_CERT_FILE")
        let key = try reader.readableFile("HERALD_AMQP_KEY_FILE")
        if (certificate == nil) != (key == nil) {
            throw reader.invalid(certificate == nil ? "HERALD_AMQP_KEY_FILE" : "HERALD_AMQP_CERT_FILE", "a client certificate needs both HERALD_AMQP_CERT_FILE and HERALD_AMQP_KEY_FILE")
        }
        let verifyHostname = try reader.parse("HERALD_AMQP_VERIFY_HOSTNAME", expected: "true or false") { Bool($0.lowercased()) }
        let named = ["HERALD_AMQP_CA_FILE", "HERALD_AMQP_CERT_FILE", "HERALD_AMQP_KEY_FILE", "HERALD_AMQP_VERIFY_HOSTNAME"].first { reader.string($0) != nil }
        return (AMQPTLS(caFile: ca, certificateFile: certificate, keyFile: key, verifyHostname: verifyHostname ?? true), named)
    }

    /// Reads the settings from `environment`, using `defaultPort` when `HERALD_HTTP_PORT` is unset.
    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment, defaultPort: Int) throws {
        let reader = EnvironmentReader(environment)
        let brokers = try Self.brokerURLs(reader)
        amqpURL = brokers[0]
        amqpFailover = Array(brokers.dropFirst())
        let confirmSeconds = try reader.parse("HERALD_AMQP_CONFIRM_TIMEOUT", expected: "a number of seconds from 1 to 3600") {
            Double($0).flatMap { (1...3600).contains($0) ? $0 : nil }
        } ?? 30
        confirmTimeout = .milliseconds(Int64(confirmSeconds * 1000))
        quorumReplicas = try Self.quorumReplicas(reader)
        httpHost = reader.string("HERALD_HTTP_HOST") ?? "0.0.0.0"
        httpPort = try reader.parse("HERALD_HTTP_PORT", expected: "a port number (0-65535)") { Int($0).flatMap { (0...65535).contains($0) ? $0 : nil } } ?? defaultPort
        opsPort = try reader.parse("HERALD_OPS_PORT", expected: "a port number (0-65535)") { Int($0).flatMap { (0...65535).contains($0) ? $0 : nil } }
        dataDirectory = URL(fileURLWithPath: reader.string("HERALD_DATA_DIR") ?? "data", isDirectory: true)
        databaseURL = try reader.parse("HERALD_DATABASE_URL", expected: "a PostgreSQL URL, postgres://user:password@host:5432/database") {
            $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") ? $0 : nil
        }
        databasePassword = try reader.string("HERALD_DATABASE_PASSWORD_FILE").map { try SecretFile.text($0, setting: "HERALD_DATABASE_PASSWORD_FILE") }
        databaseCAFile = try reader.readableFile("HERALD_DATABASE_CA_FILE")
        databaseCertificateFile = try reader.readableFile("HERALD_DATABASE_CERT_FILE")
        databaseKeyFile = try reader.readableFile("HERALD_DATABASE_KEY_FILE")
        logLevel = try reader.parse("HERALD_LOG_LEVEL", expected: "one of trace, debug, info, notice, warning, error, critical") { Logger.Level(rawValue: $0.lowercased()) } ?? .info
        logFormat = try reader.parse("HERALD_LOG_FORMAT", expected: "json or text") { LogFormat(rawValue: $0.lowercased()) } ?? .json
        configPath = reader.string("HERALD_CONFIG")
        let seconds = try reader.parse("HERALD_SHUTDOWN_TIMEOUT", expected: "a positive number of seconds") { Double($0).flatMap { $0 > 0 ? $0 : nil } } ?? 30
        shutdownTimeout = .milliseconds(Int64(seconds * 1000))
    }
}
