import Foundation
import Logging
import Messaging

/// The infrastructure settings every service reads from its environment. Defaults run the
/// whole stack on one machine.
///
/// | variable | default |
/// |---|---|
/// | `HERALD_AMQP_URL` | `amqp://guest:guest@localhost:5672/` |
/// | `HERALD_HTTP_HOST` | `0.0.0.0` |
/// | `HERALD_HTTP_PORT` | the service's own port |
/// | `HERALD_DATA_DIR` | `./data` |
/// | `HERALD_LOG_LEVEL` | `info` |
/// | `HERALD_LOG_FORMAT` | `json` (or `text`) |
/// | `HERALD_CONFIG` | none: no apps configured |
/// | `HERALD_SHUTDOWN_TIMEOUT` | `30` seconds |
public struct ServiceEnvironment: Sendable {
    public var amqpURL: AMQPURL
    public var httpHost: String
    public var httpPort: Int
    public var dataDirectory: URL
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var configPath: String?
    /// How long graceful shutdown may take before in-flight work is abandoned to the broker.
    public var shutdownTimeout: Duration

    public enum LogFormat: String, Sendable {
        case json, text
    }

    /// Reads the settings from `environment`, using `defaultPort` when `HERALD_HTTP_PORT` is unset.
    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment, defaultPort: Int) throws {
        func value(_ key: String) -> String? {
            guard let text = environment[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        do {
            amqpURL = try AMQPURL(value("HERALD_AMQP_URL") ?? "amqp://guest:guest@localhost:5672/")
        } catch let error as MessagingError {
            throw ConfigurationError(.invalidValue, setting: "HERALD_AMQP_URL", error.message)
        }
        httpHost = value("HERALD_HTTP_HOST") ?? "0.0.0.0"
        if let text = value("HERALD_HTTP_PORT") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ConfigurationError(.invalidValue, setting: "HERALD_HTTP_PORT", "\"\(text)\" is not a port number (0-65535)")
            }
            httpPort = port
        } else {
            httpPort = defaultPort
        }
        dataDirectory = URL(fileURLWithPath: value("HERALD_DATA_DIR") ?? "data", isDirectory: true)
        if let text = value("HERALD_LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ConfigurationError(.invalidValue, setting: "HERALD_LOG_LEVEL", "\"\(text)\" is not one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = level
        } else {
            logLevel = .info
        }
        if let text = value("HERALD_LOG_FORMAT") {
            guard let format = LogFormat(rawValue: text.lowercased()) else {
                throw ConfigurationError(.invalidValue, setting: "HERALD_LOG_FORMAT", "\"\(text)\" is not json or text")
            }
            logFormat = format
        } else {
            logFormat = .json
        }
        configPath = value("HERALD_CONFIG")
        if let text = value("HERALD_SHUTDOWN_TIMEOUT") {
            guard let seconds = Double(text), seconds > 0 else {
                throw ConfigurationError(.invalidValue, setting: "HERALD_SHUTDOWN_TIMEOUT", "\"\(text)\" is not a positive number of seconds")
            }
            shutdownTimeout = .milliseconds(Int64(seconds * 1000))
        } else {
            shutdownTimeout = .seconds(30)
        }
    }
}
