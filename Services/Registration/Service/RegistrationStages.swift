import Foundation
import HeraldDomain
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

    /// Consumes events in batches: the events that have arrived (up to `batchSize`) are
    /// claimed in one transaction (a copy of an event processed before is acknowledged without
    /// publishing again; one being processed right now is waited for, see `settle`); each claimed event becomes one
    /// delivery per device (deterministic ids), or outcome `filtered` with reason
    /// `no audience`. At most `batchesInFlight` batches run at once, so under load a batch
    /// holds what arrived while the others were in flight: the deliveries of its events
    /// leave as packs of up to 100, and every stage after keeps that size, so each hop
    /// downstream costs the broker one message per pack. The batch is marked
    /// processed in one transaction once its deliveries are confirmed, so a crash in between
    /// redelivers the events and repeats the same ids.
    public static func resolving(
        runtime: ServiceRuntime, apps: AppsConfiguration, store: any AudienceStore & EventClaimStore & EventLogStore, routes: StageRoutes = events, prefetch: UInt16 = 256, batchSize: Int = 64,
        batchesInFlight: Int = 1
    ) -> Stage<NotificationEvent> {
        let resolver = AudienceResolver(store: store, apps: apps)
        let resolved = Counter(label: "herald_registration_deliveries_total")
        let repeated = Counter(label: "herald_registration_events_total", dimensions: [("result", "repeated")])
        let empty = Counter(label: "herald_registration_events_total", dimensions: [("result", "no_audience")])
        let fannedOut = Counter(label: "herald_registration_events_total", dimensions: [("result", "resolved")])
        let keys: @Sendable ([NotificationEvent]) -> [EventKey] = { $0.map { .init(app: $0.app, eventId: $0.id) } }
        return Stage(
            "registration.events", consuming: routes.input, prefetch: prefetch, batchSize: batchSize, batchesInFlight: batchesInFlight, runtime: runtime,
            committed: { events in try await store.markProcessed(keys(events)) },
            released: { events in await store.release(keys(events)) }
        ) { events in
            var claims = try await store.claim(keys(events))
            var outputs: [[Emission]?] = []
            outputs.reserveCapacity(events.count)
            do {
                try await settle(&claims, keys(events), store: store)
                let claimed = zip(events, claims).filter { $0.1 == .claimed }.map(\.0)
                let audiences = try await resolver.devices(of: claimed)
                var next = audiences.startIndex
                for (event, claim) in zip(events, claims) {
                    // A repeat, or a second copy in this batch: not its to commit or release.
                    guard claim == .claimed else {
                        repeated.increment()
                        outputs.append(nil)
                        continue
                    }
                    outputs.append(try fanOut(event, to: audiences[next], routes: routes, counters: (resolved, empty, fannedOut)))
                    next += 1
                }
                // Logged before any delivery is out, so no outcome arrives before its event.
                try await store.logEvents(zip(events, outputs).enumerated().compactMap { index, pair in
                    pair.1.map {
                        LoggedEvent(
                            app: pair.0.app, eventId: pair.0.id, source: pair.0.source.rawValue, kind: pair.0.kind, acceptedAt: pair.0.acceptedAt ?? Date(),
                            deliveries: $0.count, traceId: StageTrace.sampledTraceId(ofInput: index))
                    }
                })
            } catch {
                // The stage releases only after the handler returned: these claims are ours to end.
                await store.release(zip(keys(events), claims).filter { $0.1 == .claimed }.map(\.0))
                throw error
            }
            return outputs
        }
    }

    /// How long a batch waits for events another replica or batch holds before giving up (the
    /// batch then goes back to the broker): past the claim lease, after which a dead
    /// replica's claims are taken over.
    static let heldElsewhereWait: Duration = .seconds(45)

    /// Asks again, every 100 ms, for the events another replica, or another batch of this
    /// process, is fanning out, until each is processed (that one finished) or ours (it
    /// released the claim, or died and its claim expired). A copy another batch holds is not
    /// a repeat until that batch has published: after a lost connection the broker hands the
    /// copy over while the first batch is still in flight, and should that batch fail, the
    /// copy is all that is left of the event. A second copy in this batch goes with the first.
    /// `claims` is updated as events are won, so a batch failing meanwhile releases them too.
    static func settle(_ claims: inout [EventClaim], _ keys: [EventKey], store: any EventClaimStore) async throws {
        let deadline = ContinuousClock.now + heldElsewhereWait
        while case let held = claims.indices.filter({ isHeldOutside(claims, keys, $0) }), !held.isEmpty {
            guard ContinuousClock.now < deadline else {
                throw StorageWaitError("\(held.count) events stayed claimed by another replica or batch for \(heldElsewhereWait)")
            }
            try await Task.sleep(for: .milliseconds(100))
            for (index, claim) in zip(held, try await store.claim(held.map { keys[$0] })) { claims[index] = claim }
        }
    }

    /// Whether the event at `index` is held outside this batch: by another replica, or in
    /// flight here without an earlier copy in this batch holding the claim.
    static func isHeldOutside(_ claims: [EventClaim], _ keys: [EventKey], _ index: Int) -> Bool {
        switch claims[index] {
        case .heldElsewhere: true
        case .inFlight: !claims.indices.prefix(index).contains { claims[$0] == .claimed && keys[$0] == keys[index] }
        case .claimed, .processed: false
        }
    }

    /// One delivery per device of the event's audience, or the `no audience` outcome.
    private static func fanOut(
        _ event: NotificationEvent, to recipients: [AudienceResolver.ResolvedDevice], routes: StageRoutes,
        counters: (resolved: Counter, empty: Counter, fannedOut: Counter)
    ) throws -> [Emission] {
        // An event published straight to the queue was never accepted by a gateway: its
        // deliveries' retry window counts from now.
        var event = event
        if event.acceptedAt == nil { event.acceptedAt = Date() }
        guard !recipients.isEmpty else {
            counters.empty.increment()
            return [try .outcome(Outcome(
                deliveryId: "\(event.id):none", eventId: event.id, app: event.app, status: .filtered,
                reason: "no audience", at: Date()), to: routes.outcomes)]
        }
        counters.fannedOut.increment()
        counters.resolved.increment(by: recipients.count)
        if recipients.count == 1 {
            // One device: a template would cost more than the one encoding it saves.
            return [try delivery(of: event, to: recipients[0], routes: routes)]
        }
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

    /// The delivery of `event` to one recipient, encoded on its own.
    private static func delivery(of event: NotificationEvent, to recipient: AudienceResolver.ResolvedDevice, routes: StageRoutes) throws -> Emission {
        let deliveryId = Delivery.makeId(app: event.app, eventId: event.id, deviceId: recipient.device.id)
        let delivery = Delivery(
            deliveryId: deliveryId, eventId: event.id, app: event.app, source: event.source, kind: event.kind,
            occurredAt: event.occurredAt, context: event.context, data: event.data, alert: event.alert,
            options: event.options, device: recipient.device, addressKey: recipient.addressKey)
        return Emission(OutgoingMessage(
            exchange: routes.output.name, routingKey: HeraldTopology.RoutingKey.resolved, body: try delivery.wireJSON(),
            properties: .contract(Delivery.contractName, messageId: deliveryId, correlationId: event.id), mandatory: true))
    }

    /// Consumes token revocations: removes the device unless it registered again after the
    /// failed send, keeps an audit row, and emits an outcome; a removal is also a
    /// `device.revoked` callback, to `herald.dispatch` under `callback`, for an app whose
    /// `callbacks` ask for it (the same callback id for every copy of the revocation).
    public static func revoking(
        runtime: ServiceRuntime, apps: AppsConfiguration, store: any DeviceStore, routes: StageRoutes = revocations,
        callbacks: ExchangeSpec = HeraldTopology.Exchange.dispatch
    ) -> Stage<TokenRevoked> {
        Stage("registration.revocations", consuming: routes.input, prefetch: 32, runtime: runtime) { revocation in
            let result = try await store.revoke(revocation)
            let reason: String
            var emissions: [Emission] = []
            switch result {
            case .removed(let deviceId, let userId):
                reason = "device \(deviceId) removed: \(revocation.reason)"
                revocationCounters.removed.increment()
                if apps.apps[revocation.app]?.callbacks?.wants(.deviceRevoked) == true {
                    emissions.append(try .publish(
                        revokedCallback(revocation, deviceId: deviceId, userId: userId, at: Date()), to: callbacks, routingKey: HeraldTopology.RoutingKey.dispatch(.callback)))
                }
            case .renewed(let deviceId):
                reason = "device \(deviceId) kept: registered again after the failed send"
                revocationCounters.renewed.increment()
            case .unknown:
                reason = "no device has this token"
                revocationCounters.unknown.increment()
            }
            emissions.append(try .outcome(Outcome(
                deliveryId: revocation.deliveryId ?? "revoke:\(revocation.token.prefix(16))", eventId: revocation.eventId ?? revocation.messageId,
                app: revocation.app, status: .revoked, reason: reason, providerCode: revocation.reason, at: Date()), to: routes.outcomes))
            return emissions
        }
    }

    /// The `device.revoked` callback of a removal: the device, its user, its platform, its
    /// token masked, and the provider's code; `at`, when it was removed, is its timestamp.
    static func revokedCallback(_ revocation: TokenRevoked, deviceId: String, userId: String?, at: Date) -> DispatchRequest {
        var data = [
            "app": revocation.app, "deviceId": deviceId, "platform": revocation.platform.rawValue,
            "token": TokenMask.masked(revocation.token), "providerCode": revocation.reason,
            "reason": "\(revocation.platform.rawValue) said the token is no longer valid (\(revocation.reason)); the device was removed",
        ]
        if let userId { data["userId"] = userId }
        if let eventId = revocation.eventId { data["eventId"] = eventId }
        return .callback(.deviceRevoked, app: revocation.app, key: revocation.messageId, data: data, at: at)
    }

    /// Consumes every outcome and keeps each delivery's latest, for `GET /events/{eventId}`,
    /// and its event's counts, for `GET /events`. Outcomes are recorded in batches of up to
    /// `batchSize` messages, one transaction each, one batch at a time: what arrives while a
    /// batch is written is the next batch. A failed, expired or delivered outcome is also a
    /// callback (`delivery.failed`, …) for an app that asked for it, once recorded, and an
    /// event whose last delivery this batch finished an `event.completed`; a callback's own
    /// outcomes are not.
    public static func recordingOutcomes(
        runtime: ServiceRuntime, apps: AppsConfiguration = AppsConfiguration(), store: any OutcomeStore, routes: StageRoutes = outcomes,
        callbacks: ExchangeSpec = HeraldTopology.Exchange.dispatch, prefetch: UInt16 = 512, batchSize: Int = 256, batchesInFlight: Int = 1
    ) -> Stage<Outcome> {
        let recorded = Counter(label: "herald_registration_outcomes_recorded_total")
        let byStatus = DeliveryOutcomeCounters()
        return Stage("registration.outcomes", consuming: routes.input, prefetch: prefetch, batchSize: batchSize, batchesInFlight: batchesInFlight, runtime: runtime) { outcomes in
            let completed = try await store.record(outcomes)
            recorded.increment(by: outcomes.count)
            for outcome in outcomes { byStatus.count(outcome) }
            var outputs: [[Emission]?] = try outcomes.map { outcome in
                guard let callback = deliveryCallback(outcome, apps: apps) else { return [] }
                return [try .publish(callback, to: callbacks, routingKey: HeraldTopology.RoutingKey.dispatch(.callback))]
            }
            // Each with the last outcome of its event in the batch.
            for event in completed where apps.apps[event.app]?.callbacks?.wants(.eventCompleted) == true {
                guard let index = outcomes.lastIndex(where: { $0.app == event.app && $0.eventId == event.summary.eventId }) else { continue }
                outputs[index] = (outputs[index] ?? []) + [try .publish(
                    completedCallback(event), to: callbacks, routingKey: HeraldTopology.RoutingKey.dispatch(.callback))]
            }
            return outputs
        }
    }

    /// The `event.completed` callback of an event: its source and kind, status and counts
    /// (numbers as text, as every callback's data), the time it completed; one id per event.
    static func completedCallback(_ event: CompletedEvent) -> DispatchRequest {
        let summary = event.summary
        let counts = summary.counts
        let data = [
            "app": event.app, "eventId": summary.eventId, "source": summary.source, "kind": summary.kind, "status": summary.status.rawValue,
            "deliveries": String(summary.deliveries), "delivered": String(counts.delivered), "failed": String(counts.failed),
            "expired": String(counts.expired), "revoked": String(counts.revoked), "filtered": String(counts.filtered),
        ]
        return .callback(.eventCompleted, app: event.app, key: summary.eventId, data: data, at: summary.completedAt ?? Date())
    }

    /// The callback an outcome is for its app, if the app asked for that kind: the delivery,
    /// its event, status, reason and provider code; the outcome's time is its timestamp, and
    /// its id follows from the outcome's (the same for a repeat of the outcome).
    static func deliveryCallback(_ outcome: Outcome, apps: AppsConfiguration) -> DispatchRequest? {
        guard let event = CallbackEvent(outcome: outcome.status), !outcome.eventId.hasPrefix(CallbackEvent.eventIdPrefix),
              apps.apps[outcome.app]?.callbacks?.wants(event) == true else { return nil }
        var data = ["app": outcome.app, "eventId": outcome.eventId, "deliveryId": outcome.deliveryId, "status": outcome.status.rawValue]
        if let reason = outcome.reason { data["reason"] = reason }
        if let code = outcome.providerCode { data["providerCode"] = code }
        return .callback(event, app: outcome.app, key: outcome.messageId, data: data, at: outcome.at)
    }
}

/// `herald_registration_revocations_total` by result, made once.
private let revocationCounters = (
    removed: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "removed")]),
    renewed: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "renewed")]),
    unknown: Counter(label: "herald_registration_revocations_total", dimensions: [("result", "unknown")])
)
