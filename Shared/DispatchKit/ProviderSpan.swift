import HeraldModel
import HeraldTracing
import Tracing

/// The client span of one provider request (`<platform> send`), a child of its dispatch
/// request's consumer span: the provider, the delivery, and what the provider answered (the
/// result and its code). A request of a multicast send has its own span over the shared call.
struct ProviderSpan {
    let span: any Span

    init(_ request: DispatchRequest, context: ServiceContext) {
        span = InstrumentationSystem.tracer.startAnySpan("\(request.platform.rawValue) send", context: context, ofKind: .client)
        span.updateAttributes { attributes in
            attributes["herald.platform"] = request.platform.rawValue
            attributes["herald.delivery_id"] = request.deliveryId
            attributes["herald.event_id"] = request.eventId
            attributes["herald.app"] = request.app
            attributes["herald.attempt"] = request.attempt
        }
    }

    /// Records `result` and ends the span; a failure, revocation, retry or hold is an error
    /// status. The provider's own text stays out (it may quote what was sent): its code says it.
    func end(_ result: SendResult) {
        let name = switch result {
        case .delivered: "delivered"
        case .retry: "retry"
        case .failed: "failed"
        case .revoked: "revoked"
        case .held: "held"
        case .expired: "expired"
        }
        let code = result.code?.raw
        span.updateAttributes { attributes in
            attributes["herald.result"] = name
            if let code { attributes["herald.provider_code"] = code }
        }
        if name != "delivered", name != "expired" {
            span.setStatus(SpanStatus(code: .error, message: [name, code].compactMap { $0 }.joined(separator: " ")))
        }
        span.end()
    }
}
