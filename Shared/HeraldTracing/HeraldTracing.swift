import Foundation
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// The process's tracer: swift-otel's OTLP exporter behind swift-distributed-tracing's
/// `InstrumentationSystem`, bootstrapped once per process, or nothing at all. Code that makes
/// spans asks `isEnabled` first, so a service without a collector pays one branch per
/// message and no more.
public enum HeraldTracing {
    private static let enabled = Atomic<Bool>(false)
    private static let bootstrapped = Mutex(false)

    /// Whether this process makes spans.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Starts tracing as `configuration` says: answers the exporter's service (to run first in
    /// the service group, so it stops last and flushes every span), or nil when tracing is off
    /// or a tracer was bootstrapped already in this process.
    public static func bootstrap(_ configuration: TracingConfiguration, logger: Logger) throws -> (any Service)? {
        guard configuration.enabled else { return nil }
        return try bootstrapped.withLock { done -> (any Service)? in
            guard !done else { return nil }
            var otel = OTel.Configuration.default
            otel.serviceName = configuration.serviceName
            otel.diagnosticLogger = .custom(logger)
            otel.diagnosticLogLevel = .warning
            otel.metrics.enabled = false
            otel.logs.enabled = false
            otel.traces.enabled = true
            let backend: (factory: any Tracer, service: any Service)
            do {
                let made = try OTel.makeTracingBackend(configuration: otel)
                backend = (made.factory, made.service)
            } catch {
                throw TracingConfigurationError(variable: "OTEL_*", "the tracer could not be made: \(error)")
            }
            InstrumentationSystem.bootstrap(backend.factory)
            done = true
            enabled.store(true, ordering: .relaxed)
            return backend.service
        }
    }
}
