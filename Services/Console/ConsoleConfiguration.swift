import Foundation
import HeraldControl
import Messaging
import ServiceKit

/// Where the Herald Console is served and what its overview asks, from the gateway's
/// environment:
///
/// | variable | default |
/// |---|---|
/// | `HERALD_CONSOLE` | `on` (`off` serves no console) |
/// | `HERALD_CONSOLE_PORT` | none: the console shares the ops port (9080) |
/// | `HERALD_CONSOLE_HOST` | `HERALD_HTTP_HOST`: the address of its own port (`127.0.0.1` keeps it on the machine) |
/// | `HERALD_CONSOLE_SERVICES` | none: `name=http://host:port,…`, the services whose `/readyz` the overview shows |
/// | `HERALD_MANAGEMENT_URL` | `http://<broker host>:15672`: RabbitMQ's management API, for unacknowledged counts and rates |
/// | `HERALD_CONSOLE_TRACE_URL` | none: a trace viewer's URL with `{traceId}` where an event's trace id goes (e.g. Jaeger's `http://jaeger:16686/trace/{traceId}`); the event page links its trace there |
public struct ConsoleConfiguration: Sendable {
    public var enabled = true
    /// Its own port; nil serves it on the ops port.
    public var port: Int?
    public var host: String
    public var services: [ServiceReadiness.Target] = []
    public var amqpURL: AMQPURL
    public var managementURL: String?
    /// Where the event page links an event's trace: a URL template with `{traceId}`.
    public var traceURL: String?
    /// How many dead letters a page lists at most.
    public var deadLetterLimit = 200

    public init(host: String = "0.0.0.0", amqpURL: AMQPURL) {
        self.host = host
        self.amqpURL = amqpURL
    }

    /// Reads the settings above; throws `ConfigurationError` naming the one that is wrong.
    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment, service: ServiceEnvironment) throws {
        let reader = EnvironmentReader(environment)
        self.init(host: reader.string("HERALD_CONSOLE_HOST") ?? service.httpHost, amqpURL: service.amqpURL)
        enabled = try reader.parse("HERALD_CONSOLE", expected: "on or off") { ["on": true, "off": false][$0.lowercased()] } ?? true
        port = try reader.parse("HERALD_CONSOLE_PORT", expected: "a port number (0-65535)") { Int($0).flatMap { (0...65535).contains($0) ? $0 : nil } }
        managementURL = try reader.parse("HERALD_MANAGEMENT_URL", expected: "an http(s) URL") { $0.hasPrefix("http://") || $0.hasPrefix("https://") ? $0 : nil }
        traceURL = try reader.parse("HERALD_CONSOLE_TRACE_URL", expected: "an http(s) URL with {traceId}") {
            ($0.hasPrefix("http://") || $0.hasPrefix("https://")) && $0.contains("{traceId}") ? $0 : nil
        }
        if let list = reader.string("HERALD_CONSOLE_SERVICES") {
            for item in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }) where !item.isEmpty {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("http://") || parts[1].hasPrefix("https://") else {
                    throw reader.invalid("HERALD_CONSOLE_SERVICES", "\"\(item)\" is not name=http://host:port")
                }
                services.append(ServiceReadiness.Target(name: parts[0], url: parts[1]))
            }
        }
    }
}
