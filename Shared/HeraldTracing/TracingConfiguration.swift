import Foundation

/// Whether and how a Herald service traces, read from OpenTelemetry's own environment
/// variables. Tracing is off unless an OTLP endpoint is named (`OTEL_EXPORTER_OTLP_ENDPOINT`
/// or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER` asks for an exporter, and
/// `OTEL_SDK_DISABLED=true` turns it off whatever else is set. The rest (`OTEL_SERVICE_NAME`,
/// `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`, `OTEL_RESOURCE_ATTRIBUTES`, the batch
/// processor's and exporter's settings) swift-otel reads itself.
public struct TracingConfiguration: Sendable, Hashable {
    /// Whether spans are made and exported.
    public var enabled: Bool
    /// The `service.name` of the spans when `OTEL_SERVICE_NAME` does not say: the executable's name.
    public var serviceName: String

    public init(enabled: Bool = false, serviceName: String) {
        self.enabled = enabled
        self.serviceName = serviceName
    }

    /// The configuration `environment` asks for. Throws `TracingConfigurationError` for a
    /// protocol this build cannot export with (only `http/protobuf` and `http/json` are built).
    public init(environment: [String: String], serviceName: String) throws {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        self.serviceName = value("OTEL_SERVICE_NAME") ?? serviceName
        let disabled = value("OTEL_SDK_DISABLED")?.lowercased() == "true"
        let exporter = value("OTEL_TRACES_EXPORTER")?.lowercased()
        let endpoint = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value("OTEL_EXPORTER_OTLP_ENDPOINT")
        enabled = !disabled && exporter != "none" && (endpoint != nil || exporter != nil)
        guard enabled else { return }
        if let exporter, exporter != "otlp", exporter != "console" {
            throw TracingConfigurationError(variable: "OTEL_TRACES_EXPORTER", "\(exporter) is not an exporter Herald has: use otlp (or console, none)")
        }
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            guard let proto = value(name) else { continue }
            guard ["http/protobuf", "http/json"].contains(proto.lowercased()) else {
                throw TracingConfigurationError(variable: name, "\(proto) is not built into Herald: use http/protobuf (OTLP over HTTP, port 4318)")
            }
            break
        }
    }
}

/// A tracing setting Herald cannot follow, naming its variable.
public struct TracingConfigurationError: Error, CustomStringConvertible, Sendable {
    public var variable: String
    public var reason: String

    public init(variable: String, _ reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "\(variable): \(reason)" }
}
