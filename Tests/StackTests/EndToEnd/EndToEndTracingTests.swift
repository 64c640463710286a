import Foundation
import HeraldModel
import HeraldTestSupport
import Messaging
import Testing

/// OpenTelemetry tracing through the real executables, read back by a collector stand-in that
/// decodes OTLP/HTTP with `opentelemetry-proto`: an event posted with a caller's `traceparent`
/// is one trace across the gateway, Registration, Preferences, Encryption and the dispatcher,
/// with no span whose parent is missing; a provider's 503 and the retry stay in it; an event
/// without `traceparent` gets a trace of its own; a dead-lettered message keeps its trace.
extension ServiceProcesses {
    @Suite("Tracing end to end", .needs(.python))
    struct EndToEndTracingTests {
        @Test func everyEventIsOneTraceAcrossEveryHop() async throws {
            let receiver = try await OTLPReceiver.start()
            defer { receiver.stop() }
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, environment: receiver.environment)
            do {
                try await Self.anEventWithTraceparentIsOneTraceUnderTheCallersSpan(stack, receiver)
                try await Self.aRetriedSendStaysInItsTrace(stack, receiver)
                try await Self.anEventWithoutTraceparentGetsATraceOfItsOwn(stack, receiver)
                try await Self.aMalformedTraceparentStartsATraceAndLogsNoCredential(stack)
                try await Self.aDeadLetteredMessageKeepsItsTrace(stack, receiver)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        /// A caller's span: a fresh trace id and span id, as `traceparent` sends them.
        static func callerSpan() -> (traceId: String, spanId: String, header: String) {
            let traceId = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            let spanId = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            return (traceId, spanId, "00-\(traceId)-\(spanId)-01")
        }

        static func chat(_ stack: HeraldStack, to user: String, traceparent: String?) async throws -> String {
            let body = try JSONSerialization.data(withJSONObject: [
                "event": "message.created", "channel": ["id": "general", "displayName": "General"],
                "actor": ["id": "ann", "displayName": "Ann"], "message": ["type": "text", "text": "Traced"], "recipients": [user],
            ])
            let answer = await stack.exchange("POST", "/upstra/events", body: body, headers: traceparent.map { ["traceparent": $0] } ?? [:])
            guard answer.status == 202, let json = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                  let eventId = json["eventId"] as? String else { throw TestFailure("POST /upstra/events answered \(answer.status)") }
            return eventId
        }

        /// The spans whose parent is neither in the trace nor the caller's span.
        static func orphans(_ spans: [OTLPReceiver.Span], caller: String?) -> [OTLPReceiver.Span] {
            let ids = Set(spans.map(\.spanId))
            return spans.filter { span in
                span.parentSpanId.isEmpty ? caller != nil : !(ids.contains(span.parentSpanId) || span.parentSpanId == caller)
            }
        }

        static let stages = ["herald-gateway", "herald-registration", "herald-preferences", "herald-encryption", "herald-fcm"]

        /// Waits until the trace has its delivered provider send, the outcome's span in
        /// Registration, a consumer span in every stage after the gateway, and every span's
        /// parent (each service exports in batches of its own, so a send, or a retry's, can
        /// arrive before the span it is under), and answers its spans. A parent that never
        /// comes fails the wait after a minute.
        static func completeTrace(_ receiver: OTLPReceiver, _ traceId: String, sends: Int = 1, caller: String? = nil) async throws -> [OTLPReceiver.Span] {
            try await eventually(timeout: .seconds(60), "the trace \(traceId) complete, every span's parent in it") {
                let spans = receiver.trace(traceId)
                return spans.filter { $0.name == "fcm send" }.count >= sends
                    && orphans(spans, caller: caller).isEmpty
                    && spans.contains { $0.service == "herald-registration" && $0.attributes["herald.outcome"] == "delivered" }
                    && Set(spans.map(\.service)).isSuperset(of: stages)
                    && stages.dropFirst().allSatisfy { service in spans.contains { $0.service == service && $0.kind == "SPAN_KIND_CONSUMER" } }
            }
            return receiver.trace(traceId)
        }

        static func anEventWithTraceparentIsOneTraceUnderTheCallersSpan(_ stack: HeraldStack, _ receiver: OTLPReceiver) async throws {
            try await stack.expectOK("PUT", "/devices/traced-phone", ["platform": "fcm", "token": "traced-token", "os": "android", "userId": "traced"])
            let caller = callerSpan()
            let eventId = try await chat(stack, to: "traced", traceparent: caller.header)
            let spans = try await completeTrace(receiver, caller.traceId, caller: caller.spanId)
            let server = try #require(spans.first { $0.service == "herald-gateway" && $0.kind == "SPAN_KIND_SERVER" }, "\(spans)")
            #expect(server.parentSpanId == caller.spanId, "the gateway's span continues the caller's: \(server)")
            #expect(orphans(spans, caller: caller.spanId).isEmpty, "spans whose parent is not in the trace: \(orphans(spans, caller: caller.spanId))")
            let send = try #require(spans.first { $0.name == "fcm send" })
            #expect(send.kind == "SPAN_KIND_CLIENT" && send.attributes["herald.result"] == "delivered" && send.attributes["herald.event_id"] == eventId, "\(send)")
            for service in stages.dropFirst() {
                #expect(spans.contains { $0.service == service && $0.kind == "SPAN_KIND_CONSUMER" && $0.attributes["herald.event_id"] == eventId },
                        "\(service) has a consumer span for the event: \(spans)")
            }
            // Nothing secret: no span shows the device's token.
            let attributes = spans.flatMap { $0.attributes.values }
            #expect(!attributes.contains { $0.contains("traced-token") })
            let status = try await stack.expectOK("GET", "/events/\(eventId)")
            let summary = (status["event"] as? [String: Any])?["summary"] as? [String: Any]
            #expect(summary?["traceId"] as? String == caller.traceId, "GET /events/{id} names the trace: \(status)")
        }

        static func aRetriedSendStaysInItsTrace(_ stack: HeraldStack, _ receiver: OTLPReceiver) async throws {
            try await stack.expectOK("PUT", "/devices/busy-phone", ["platform": "fcm", "token": "unavailable-1-traced", "os": "android", "userId": "busy"])
            let caller = callerSpan()
            _ = try await chat(stack, to: "busy", traceparent: caller.header)
            let spans = try await completeTrace(receiver, caller.traceId, sends: 2, caller: caller.spanId)
            let sends = spans.filter { $0.name == "fcm send" }.compactMap { $0.attributes["herald.result"] }
            #expect(sends.sorted() == ["delivered", "retry"], "a 503, then the retry delivered, in one trace: \(sends)")
            #expect(orphans(spans, caller: caller.spanId).isEmpty, "\(orphans(spans, caller: caller.spanId))")
        }

        static func anEventWithoutTraceparentGetsATraceOfItsOwn(_ stack: HeraldStack, _ receiver: OTLPReceiver) async throws {
            let eventId = try await chat(stack, to: "traced", traceparent: nil)
            @Sendable func traceId() async -> String? {
                let status = await stack.call("GET", "/events/\(eventId)")
                return ((status.json["event"] as? [String: Any])?["summary"] as? [String: Any])?["traceId"] as? String
            }
            try await eventually(timeout: .seconds(60), "the event's trace id in GET /events/{id}") { await traceId() != nil }
            let spans = try await completeTrace(receiver, try #require(await traceId()))
            let roots = spans.filter { $0.parentSpanId.isEmpty }
            #expect(roots.count == 1 && roots.first?.service == "herald-gateway", "one root, the gateway's: \(roots)")
            #expect(orphans(spans, caller: nil).isEmpty, "\(orphans(spans, caller: nil))")
        }

        /// A caller's broken `traceparent` is no reason to refuse the event, and the warning the
        /// tracer logs about it must not carry the request's headers (its Authorization).
        static func aMalformedTraceparentStartsATraceAndLogsNoCredential(_ stack: HeraldStack) async throws {
            let eventId = try await chat(stack, to: "traced", traceparent: "00-not-a-trace-id-01")
            try await eventually(timeout: .seconds(60), "the event with a broken traceparent traced on its own") {
                let status = await stack.call("GET", "/events/\(eventId)")
                return ((status.json["event"] as? [String: Any])?["summary"] as? [String: Any])?["traceId"] is String
            }
            #expect(!stack.gateway.logText().contains(stack.key), "the gateway's log shows the API key")
        }

        static func aDeadLetteredMessageKeepsItsTrace(_ stack: HeraldStack, _ receiver: OTLPReceiver) async throws {
            // A copy of everything dead-lettered, to find this one in.
            let queue = QueueSpec("test.tracing.dead-\(UUID().uuidString.prefix(8))", kind: .classic)
            let topology = AMQPTopology(
                exchanges: [ExchangeSpec("herald.dead", kind: .fanout)], queues: [queue],
                bindings: [BindingSpec(exchange: "herald.dead", queue: queue.name, routingKey: "")])
            let collector = Collector(TestBroker.configuration("tracing-dead-letters", topology: topology), queue: queue.name)
            let publisher = Publisher(configuration: TestBroker.configuration("tracing-publisher", topology: topology))
            defer { Task { await collector.stop(); await publisher.close(); try? await TestBroker.admin.delete(queue: queue.name) } }
            let caller = callerSpan()
            let id = "undecodable-\(UUID().uuidString)"
            try await publisher.publish(OutgoingMessage(
                exchange: "herald.events", routingKey: "upstra.message.created", body: Data("{\"not\": \"an event\"}".utf8),
                properties: MessageProperties(type: "herald.event.v1", messageId: id, headers: ["traceparent": .string(caller.header)])))
            try await collector.inbox.waitUntil("the undecodable event dead-lettered") { $0.contains { $0.properties.messageId == id } }
            let letter = try #require(await collector.inbox.messages.first { $0.properties.messageId == id })
            #expect(letter.properties.headers["traceparent"]?.stringValue?.contains(caller.traceId) == true, "\(letter.properties.headers)")
            try await eventually(timeout: .seconds(30), "the dead letter's span in the caller's trace") {
                receiver.trace(caller.traceId).contains { $0.name.hasPrefix("dead-letter") && $0.parentSpanId == caller.spanId && $0.statusCode == "STATUS_CODE_ERROR" }
            }
        }
    }
}
