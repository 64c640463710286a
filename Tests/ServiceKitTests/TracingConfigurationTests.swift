import HeraldTracing
import Testing

/// Tracing reads OpenTelemetry's own variables and is off unless an exporter is named.
@Suite("Tracing configuration")
struct TracingConfigurationTests {
    @Test func tracingIsOffWithoutAnEndpoint() throws {
        let configuration = try TracingConfiguration(environment: ["OTEL_TRACES_SAMPLER": "always_on"], serviceName: "herald-fcm")
        #expect(!configuration.enabled)
    }

    @Test func anEndpointTurnsItOnUnderTheExecutablesName() throws {
        let configuration = try TracingConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], serviceName: "herald-fcm")
        #expect(configuration.enabled && configuration.serviceName == "herald-fcm")
        let traces = try TracingConfiguration(environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"], serviceName: "x")
        #expect(traces.enabled)
    }

    @Test func otelServiceNameWins() throws {
        let configuration = try TracingConfiguration(
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SERVICE_NAME": "push-fcm"], serviceName: "herald-fcm")
        #expect(configuration.serviceName == "push-fcm")
    }

    @Test func sdkDisabledOrExporterNoneTurnsItOff() throws {
        for off in [["OTEL_SDK_DISABLED": "true"], ["OTEL_TRACES_EXPORTER": "none"]] {
            let configuration = try TracingConfiguration(environment: off.merging(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]) { $1 }, serviceName: "x")
            #expect(!configuration.enabled, "\(off)")
        }
    }

    @Test func gRPCIsRefusedNamingTheVariable() {
        #expect(throws: TracingConfigurationError.self) {
            try TracingConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], serviceName: "x")
        }
        do {
            _ = try TracingConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"], serviceName: "x")
        } catch let error as TracingConfigurationError {
            #expect(error.variable == "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" && error.reason.contains("http/protobuf"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
