import Foundation
import HeraldModel
import Messaging
import Metrics
import ServiceKit

/// herald-registration's stages: resolving events into deliveries, applying token
/// revocations, and recording outcomes.
public enum RegistrationStages {
    /// Herald's routes: `registration.events` in, `herald.deliveries` (`resolved`) out.
    public static let events = StageRoutes(input: HeraldTopology.Queue.registrationEvents, output: HeraldTopology.Exchange.deliveries)
    /// `registration.revocations` in; only outcomes out.
    public static let revocations = StageRoutes(input: HeraldTopology.Queue.registrationRevocations, output: HeraldTopology.Exchange.outcomes)
    /// `registration.outcomes` in (every outcome); nothing out.
    public static let outcomes = StageRoutes(input: HeraldTopology.Queue.registrationOutcomes, output: HeraldTopology.Exchange.outcomes)

    /// Consumes events: an event id seen before is acknowledged without publishing again;
    /// otherwise one delivery per device (deterministic ids), or outcome `filtered` with
    /// reason `no audience`. The event counts as processed only once its deliveries are
    /// confirmed, so a crash in between redelivers it and repeats the same ids.
    public static func resolving(runtime: ServiceRuntime, store: RegistrationStore, routes: StageRoutes = events, prefetch: UInt16 = 16) -> Stage<NotificationEvent> {
        let resolver = AudienceResolver(store: store, apps: runtime.apps)
        let resolved = Counter(label: "herald_registration_deliveries_total")
        let repeated = Counter(label: "herald_registration_events_total", dimensions: [("result", "repeated")])
        let empty = Counter(label: "herald_registration_events_total", dimensions: [("result", "no_audience")])
        let fannedOut = Counter(label: "herald_registration_events_total", dimensions: [("result", "resolved")])
        return Stage(
            "registration.events", consuming: routes.input, prefetch: prefetch, runtime: runtime,
            committed: { event in try await store.markProcessed(app: event.app, eventId: event.id) }
        ) { event in
            if try await store.isProcessed(app: event.app, eventId: event.id) {
                repeated.increment()
                return []
            }
            let recipients = try await resolver.recipients(of: event)
            guard !recipients.isEmpty else {
                empty.increment()
                return [try .outcome(Outcome(
                    deliveryId: "\(event.id):none", eventId: event.id, app: event.app, status: .filtered,
                    reason: "no audience", at: Date()), to: routes.outcomes)]
            }
            fannedOut.increment()
            resolved.increment(by: recipients.count)
            // The event's part is encoded once per address key (there is at most one).
            var encoders: [AddressKey?: DeliveryFanOutEncoder] = [:]
            return try recipients.map { recipient in
                let encoder = try encoders[recipient.addressKey] ?? DeliveryFanOutEncoder(event: event, addressKey: recipient.addressKey)
                encoders[recipient.addressKey] = encoder
                let (deliveryId, body) = try encoder.encode(recipient.device)
                return Emission(OutgoingMessage(
                    exchange: routes.output.name, routingKey: HeraldTopology.RoutingKey.resolved, body: body,
                    properties: .contract(Delivery.contractName, messageId: deliveryId, correlationId: event.id), mandatory: true))
            }
        }
    }

    /// Consumes token revocations: removes the device unless it registered again after the
    /// failed send, keeps an audit row, and emits an outcome.
    public static func revoking(runtime: ServiceRuntime, store: RegistrationStore, routes: StageRoutes = revocations) -> Stage<TokenRevoked> {
        Stage("registration.revocations", consuming: routes.input, prefetch: 32, runtime: runtime) { revocation in
            let result = try await store.revoke(revocation)
            let reason: String
            switch result {
            case .removed(let deviceId):
                reason = "device \(deviceId) removed: \(revocation.reason)"
                revocationCounters.removed.increment()
            case .renewed(let deviceId):
                reason = "device \(deviceId) kept: registered again after the failed send"
                revocationCounters.renewed.increment()
            case .unknown:
                reason = "no device has this token"
                revocationCounters.unknown.increment()
            }
            return [try .outcome(Outcome(
                deliveryId: revocation.deliveryId ?? "revoke:\(revocation.token.prefix(16))", eventId: revocation.eventId ?? revocation.messageId,
                app: revocation.app, status: .revoked, reason: reason, providerCode: revocation.reason, at: Date()), to: routes.outcomes)]
        }
    }

    /// Consumes every outcome and keeps each delivery's latest, for `GET /events/{eventId}`.
    public static func recordingOutcomes(runtime: ServiceRuntime, store: RegistrationStore, routes: StageRoutes = outcomes) -> Stage<Outcome> {
        let recorded = Counter(label: "herald_registration_outcomes_recorded_total")
        return Stage("registration.outcomes", consuming: routes.input, prefetch: 64, runtime: runtime) { outcome in
            try await store.record([outcome])
            recorded.increment()
            return []
        }
    }
}

/// `herald_registration_revocations_total` by result, made once.
private let revocationCounters = (
    removed: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "removed")]),
    renewed: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "renewed")]),
    unknown: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "unknown")])
)
