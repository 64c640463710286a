import HeraldTracing
import Messaging
import Tracing

/// The consumer spans of a stage (OpenTelemetry's messaging conventions): one `process
/// <queue>` span per input, a child of the trace context the input arrived with (for a pack's
/// element, its own), so every event keeps one trace across every hop, retry and dead letter.
/// What the input emits carries the span's context on. With tracing off, none of this runs.
struct StageSpans: Sendable {
    let queue: String
    let stage: String

    /// The span of element `index` of `message`, started now; nil with tracing off.
    func start(_ input: (any StageInput)?, element index: Int, of message: ReceivedMessage, batch: Int? = nil) -> (any Span)? {
        guard HeraldTracing.isEnabled else { return nil }
        let parent = TraceHeaders.context(in: MessagePack.traceHeaders(of: message.properties, element: index))
        let span = InstrumentationSystem.tracer.startAnySpan("process \(queue)", context: parent, ofKind: .consumer)
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "rabbitmq"
            attributes["messaging.operation.type"] = "process"
            attributes["messaging.operation.name"] = "process"
            attributes["messaging.destination.name"] = queue
            attributes["messaging.consumer.group.name"] = stage
            attributes["messaging.rabbitmq.destination.routing_key"] = message.routingKey
            if let id = input?.messageId ?? message.properties.messageId { attributes["messaging.message.id"] = id }
            if let batch, batch > 1 { attributes["messaging.batch.message_count"] = batch }
            for (key, value) in input?.traceAttributes ?? [:] { attributes[key] = value }
        }
        return span
    }

    /// Runs `body` as the input's span (so what it calls sees the context), and stamps its
    /// emissions with the span's context.
    func run(_ input: any StageInput, element index: Int, of message: ReceivedMessage, _ body: () async throws -> [Emission]) async throws -> [Emission] {
        guard let span = start(input, element: index, of: message) else { return try await body() }
        defer { span.end() }
        do {
            let emissions = try await ServiceContext.withValue(span.context) { try await body() }
            return Self.stamped(emissions, with: span)
        } catch {
            Self.failed(span, error)
            throw error
        }
    }

    /// `emissions` carrying `span`'s context (those that carry none of their own).
    static func stamped(_ emissions: [Emission], with span: (any Span)?) -> [Emission] {
        guard let span else { return emissions }
        return emissions.map { emission in
            var emission = emission
            TraceHeaders.stamp(&emission.message.properties.headers, with: span.context)
            return emission
        }
    }

    /// Marks `span` failed by `error`.
    static func failed(_ span: (any Span)?, _ error: any Error) {
        guard let span else { return }
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: summary(of: error)))
    }

    /// A span saying an input carrying `headers` went to `exchange` for `reason`, in the input's
    /// trace (the dead letter keeps the input's headers, so its trace too).
    func deadLettered(headers: [String: HeaderValue], to exchange: String, reason: String) {
        guard HeraldTracing.isEnabled else { return }
        let span = InstrumentationSystem.tracer.startAnySpan("dead-letter \(queue)", context: TraceHeaders.context(in: headers), ofKind: .producer)
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "rabbitmq"
            attributes["messaging.operation.type"] = "send"
            attributes["messaging.destination.name"] = exchange
            attributes["herald.reason"] = reason
        }
        span.setStatus(SpanStatus(code: .error, message: reason))
        span.end()
    }
}

/// What a batch handler may know of its inputs' traces: the context of each input's consumer
/// span, in the inputs' order, while the handler runs (empty with tracing off). A dispatcher
/// makes each provider request's client span a child of its input's.
public enum StageTrace {
    @TaskLocal public static var inputs: [ServiceContext] = []

    /// The trace id of input `index`'s trace when it is sampled; nil with tracing off.
    public static func sampledTraceId(ofInput index: Int) -> String? {
        let inputs = inputs
        return inputs.indices.contains(index) ? TraceHeaders.sampledTraceId(of: inputs[index]) : nil
    }
}
