import Messaging
import Tracing

/// The W3C trace context in an AMQP message's headers (`traceparent`, `tracestate`, as
/// OpenTelemetry's messaging conventions carry it in application properties), read and
/// written through the bootstrapped tracer's propagator.
public enum TraceHeaders {
    /// The context `headers` carry (an empty one without trace headers).
    public static func context(in headers: [String: HeaderValue]) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard headers["traceparent"] != nil else { return context }
        InstrumentationSystem.instrument.extract(headers, into: &context, using: Extractor())
        return context
    }

    /// The headers that carry `context` (empty when it has no span).
    public static func headers(for context: ServiceContext) -> [String: HeaderValue] {
        var headers: [String: HeaderValue] = [:]
        InstrumentationSystem.instrument.inject(context, into: &headers, using: Injector())
        return headers
    }

    /// `headers` with `context`'s trace headers added, unless they carry a trace already.
    public static func stamp(_ headers: inout [String: HeaderValue], with context: ServiceContext) {
        guard headers["traceparent"] == nil else { return }
        InstrumentationSystem.instrument.inject(context, into: &headers, using: Injector())
    }

    /// The trace id of `context`'s span when the trace is sampled (its spans are exported),
    /// else nil: what the event log keeps, so an operator can look the trace up.
    public static func sampledTraceId(of context: ServiceContext) -> String? {
        guard case .string(let parent)? = headers(for: context)["traceparent"] else { return nil }
        let fields = parent.split(separator: "-")
        guard fields.count == 4, fields[1].count == 32, let flags = UInt8(fields[3], radix: 16), flags & 1 == 1 else { return nil }
        return String(fields[1])
    }

    struct Extractor: Tracing.Extractor {
        func extract(key: String, from carrier: [String: HeaderValue]) -> String? {
            carrier[key]?.stringValue
        }
    }

    struct Injector: Tracing.Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: HeaderValue]) {
            carrier[key] = .string(value)
        }
    }
}
