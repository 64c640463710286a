import Foundation
import DispatchKit
import HTTPTransport
import ServiceKit

/// How `herald-webhook` connects and how much it takes on, from its environment:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HERALD_WEBHOOK_CONNECT_TIMEOUT_MS` | `3000` | connecting (TCP and TLS) to an endpoint |
/// | `HERALD_WEBHOOK_TIMEOUT_MS` | `10000` | a whole forward, connecting included; then it is retried |
/// | `HERALD_WEBHOOK_CONCURRENCY` | `32` | forwards in flight at once to one destination |
/// | `HERALD_WEBHOOK_STALL_MS` | `500` | a destination with every slot taken and no forward finished for this long is stalled: its new deliveries go to a delay tier at once instead of waiting, so a slow tenant does not hold the prefetched deliveries others need |
/// | `HERALD_WEBHOOK_PREFETCH` | `512` | deliveries taken from `dispatch.webhook` at once |
/// | `HERALD_WEBHOOK_CIRCUIT_THRESHOLD` | `5` | `herald-callback`: failures in a row (no answer, 429, 5xx) that open an endpoint's circuit |
/// | `HERALD_WEBHOOK_CIRCUIT_OPEN_MS` | `30000` | `herald-callback`: how long the circuit first stays open (doubling after each failed probe, up to ten minutes) |
public struct WebhookSettings: Sendable, Hashable {
    public var connectTimeout: Duration
    public var timeout: Duration
    public var concurrency: Int
    public var stall: Duration
    public var prefetch: UInt16
    /// When a callback endpoint's circuit opens (callbacks only; forwards are not held).
    public var circuit = CircuitBreakerConfiguration()

    public init(connectTimeout: Duration = .seconds(3), timeout: Duration = .seconds(10), concurrency: Int = 32, stall: Duration = .milliseconds(500), prefetch: UInt16 = 512) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.stall = stall
        self.prefetch = prefetch
    }

    /// The transport these settings ask for: `concurrency` requests per destination (its
    /// URL's origin), many destinations at once, a request waiting for its slot no longer
    /// than a forward may take, small answers. curl's own connection limit is left wide:
    /// it counts connections by the address connected to, which tenants behind one address
    /// (a shared host, a CDN) would share.
    public var transport: HTTPTransportConfiguration {
        HTTPTransportConfiguration(
            name: "webhook", maxConcurrentStreams: 100, maxConnectionsPerHost: 4096,
            maxConcurrentRequests: 4096, maxRequestsPerHost: concurrency, maxQueueWait: timeout,
            maxResponseBodyBytes: 64 * 1024, connectTimeout: connectTimeout, requestTimeout: timeout)
    }

    /// Reads the variables; a bad value is a `ConfigurationError` naming it.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> WebhookSettings {
        let reader = EnvironmentReader(environment)
        var settings = WebhookSettings()
        func milliseconds(_ name: String, from minimum: Int = 100) throws -> Duration? {
            try reader.parse(name, expected: "a whole number of milliseconds from \(minimum) to 600000", {
                Int($0).flatMap { (minimum...600_000).contains($0) ? $0 : nil }
            }).map { .milliseconds($0) }
        }
        func count(_ name: String) throws -> Int? {
            try reader.parse(name, expected: "a number from 1 to 10000", { Int($0).flatMap { (1...10_000).contains($0) ? $0 : nil } })
        }
        if let value = try milliseconds("HERALD_WEBHOOK_CONNECT_TIMEOUT_MS") { settings.connectTimeout = value }
        if let value = try milliseconds("HERALD_WEBHOOK_TIMEOUT_MS") { settings.timeout = value }
        if let value = try count("HERALD_WEBHOOK_CONCURRENCY") { settings.concurrency = value }
        if let value = try milliseconds("HERALD_WEBHOOK_STALL_MS", from: 0) { settings.stall = value }
        if let value = try count("HERALD_WEBHOOK_CIRCUIT_THRESHOLD") { settings.circuit.threshold = value }
        if let value = try milliseconds("HERALD_WEBHOOK_CIRCUIT_OPEN_MS") { settings.circuit.firstOpen = value }
        if let prefetch = try reader.parse("HERALD_WEBHOOK_PREFETCH", expected: "a number from 1 to 65535", {
            UInt16($0).flatMap { $0 > 0 ? $0 : nil }
        }) {
            settings.prefetch = prefetch
        }
        return settings
    }
}
