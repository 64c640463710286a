import Metrics
import Prometheus

/// The process's Prometheus registry behind swift-metrics, bootstrapped once per process.
/// Every counter, gauge and timer made through swift-metrics appears at `GET /metrics`.
public enum HeraldMetrics {
    /// The registry (created and bootstrapped on first use).
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// The Prometheus text exposition of every metric.
    public static func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
