import HeraldModel
import HeraldTracing
import Messaging
import Tracing

/// The producer span of an accepted event (`publish <exchange>`), a child of the request's
/// server span: the event's trace begins here, and its message carries the span's context.
/// Nil with tracing off.
struct PublishSpan {
    let span: any Span

    init?(_ event: NotificationEvent, message: OutgoingMessage) {
        guard HeraldTracing.isEnabled else { return nil }
        span = InstrumentationSystem.tracer.startAnySpan("publish \(message.exchange)", context: ServiceContext.current ?? .topLevel, ofKind: .producer)
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "rabbitmq"
            attributes["messaging.operation.type"] = "send"
            attributes["messaging.operation.name"] = "publish"
            attributes["messaging.destination.name"] = message.exchange
            attributes["messaging.rabbitmq.destination.routing_key"] = message.routingKey
            attributes["messaging.message.id"] = event.id
            attributes["herald.event_id"] = event.id
            attributes["herald.app"] = event.app
            attributes["herald.source"] = event.source.rawValue
            attributes["herald.kind"] = event.kind
        }
    }

    var context: ServiceContext { span.context }

    func failed(_ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "not confirmed by the broker"))
    }

    func end() { span.end() }
}
