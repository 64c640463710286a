import Foundation
import HeraldDomain
import HeraldModel
import HeraldTracing
import JSONKit
import Messaging

/// The endpoints that take events (`POST …/events` and each integration's own) and show what
/// became of them (`GET …/events`, `…/events/{id}`, `…/stats`): a body becomes a
/// `NotificationEvent` through its source's adapter (`SourceRoute.makeEvent`) and is published with confirms (202 once
/// the broker confirmed it); the reads are Registration's answers.
struct EventsController {
    let gateway: Gateway

    /// A source's route: its adapter reads the body into an event, which is published.
    func ingest(_ route: SourceRoute, _ call: Gateway.Call) async throws -> Gateway.Reply {
        let app = gateway.apps.apps[call.app]
        let request = SourceRequest(
            body: try call.fields(), raw: call.request.body, app: call.app, appConfiguration: app, idempotencyKey: call.request.idempotencyKey,
            now: call.now, comMethod: { [providers = gateway.providers] in providers.comMethodToken($0, app: app) }, sources: gateway.sources.names)
        return try await accept(try route.makeEvent(request), at: call.now)
    }

    func getEvent(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let eventId = try call.parameter("eventId")
        var reply: RegistrationReply
        do {
            reply = try await gateway.call(RegistrationCommand.eventStatus(app: call.app, eventId: eventId), to: .registration, RegistrationReply.self)
        } catch let error as GatewayError where error.status == 404 && gateway.recent.contains(app: call.app, eventId: eventId) {
            // Accepted here moments ago, not resolved yet: known, with no deliveries so far.
            reply = RegistrationReply(event: EventStatus(eventId: eventId, resolved: false, deliveries: []))
        }
        reply.event = reply.event.map(PublicEventStatus.redacted)
        return try Gateway.json(200, reply)
    }

    func listEvents(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let reply = try await gateway.call(RegistrationCommand.listEvents(app: call.app, query: try ListQuery(query: call.request.query).events(sources: gateway.sources.names)), to: .registration, RegistrationReply.self)
        return try Gateway.json(200, reply.events ?? EventPage(events: [], nextCursor: nil))
    }

    func getStats(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let window = try ListQuery(query: call.request.query).window()
        // Registration's reply is the answer (`{"stats": …}`, thousands of minutes for a long window): passed on unread.
        return Gateway.Reply(status: 200, body: try await gateway.callForBody(RegistrationCommand.stats(app: call.app, since: call.now.addingTimeInterval(-window), until: call.now), to: .registration))
    }

    /// Publishes `event`, stamped with the time it was accepted, and answers 202 once the
    /// broker confirmed it; a repeated id inside the window is answered 202 without a second
    /// publish.
    private func accept(_ event: NotificationEvent, at now: Date) async throws -> Gateway.Reply {
        // Accepted now, whatever a canonical body said: retries end two hours after it.
        var event = event
        event.acceptedAt = now
        if event.options.ttlSeconds == nil {
            // The app's configured TTL for this source and kind (or Herald's), not four weeks.
            event.options.ttlSeconds = gateway.sources.defaultTTL(source: event.source, kind: event.kind, app: gateway.apps.apps[event.app])
        }
        if case .tokens(let tokens) = event.audience {
            // A token goes to its platform's provider: one this deployment runs.
            for (index, token) in tokens.enumerated() {
                guard gateway.providers[token.platform]?.deliversEvents == true else {
                    throw GatewayError.invalid("audience.tokens[\(index)].platform", "must be one of \(gateway.providers.eventPlatforms.map(\.rawValue).joined(separator: ", "))")
                }
                if let problem = gateway.providers.tokenProblem(token.token, platform: token.platform, app: gateway.apps.apps[event.app]) {
                    throw GatewayError.refused("audience.tokens[\(index)].token", problem)
                }
            }
        }
        var body = JSONWriter(capacity: 96)
        body.beginObject()
        body.key("eventId"); body.string(event.id)
        body.key("status"); body.string("accepted")
        body.endObject()
        let accepted = Gateway.Reply(status: 202, body: body.data)
        if gateway.recent.contains(app: event.app, eventId: event.id) { return accepted }
        // Nobody left to notify (an Upstra event whose only recipient acted): accepted, and
        // nothing to publish.
        if case .users(let users) = event.audience, users.isEmpty {
            gateway.recent.insert(app: event.app, eventId: event.id)
            return accepted
        }
        guard gateway.publisher.isConnected else { throw GatewayError.unavailable("the broker is unreachable; try again") }
        // Under a resource alarm the event would only wait in memory: refuse it now.
        guard gateway.publisher.blockedReason == nil else { throw GatewayError.unavailable("the broker refuses publishes for now (resource alarm); try again") }
        var message = try OutgoingMessage(contract: event, exchange: HeraldTopology.Exchange.events.name, routingKey: event.routingKey, mandatory: true)
        let span = PublishSpan(event, message: message)
        defer { span?.end() }
        if let span { TraceHeaders.stamp(&message.properties.headers, with: span.context) }
        do {
            try await gateway.deadlines.publish(message, with: gateway.events, timeout: gateway.configuration.publishTimeout)
        } catch {
            span?.failed(error)
            switch (error as? MessagingError)?.reason {
            case .invalidMessage?: throw GatewayError(400, "Invalid request", (error as! MessagingError).message)
            // A queue at its length limit refuses publishes (`reject-publish`).
            case .publishRejected?: throw GatewayError.unavailable("the broker refused the event: a queue is full; try again later")
            default: throw GatewayError.unavailable("the event was not confirmed by the broker; try again")
            }
        }
        gateway.recent.insert(app: event.app, eventId: event.id)
        return accepted
    }
}
