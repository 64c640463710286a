import HeraldModel

/// What `GET /v1/apps/{app}/events/{eventId}` shows of an event's outcomes: Herald's own
/// reasons (filtered by a preference, a TTL that ran out here, a payload that could not be
/// built) as they are, but nothing of a provider's or an OAuth server's text, which can name
/// accounts, hosts and internals. An outcome a provider caused carries its `providerCode`;
/// its reason becomes a fixed sentence for its status. A delivered push shows no reason (it
/// was the provider's message name).
enum PublicEventStatus {
    static func redacted(_ status: EventStatus) -> EventStatus {
        var status = status
        status.deliveries = status.deliveries.map { delivery in
            var delivery = delivery
            if delivery.status == .delivered {
                delivery.reason = nil
            } else if delivery.providerCode != nil {
                delivery.reason = sentence(for: delivery.status)
            }
            return delivery
        }
        return status
    }

    /// The public reason of an outcome a provider caused.
    static func sentence(for status: OutcomeStatus) -> String {
        switch status {
        case .retrying: "the provider could not take it now; it will be tried again"
        case .expired: "it expired before the provider took it"
        case .revoked: "the provider no longer knows the device's token"
        case .failed: "the provider refused the delivery"
        case .delivered, .filtered: "the provider answered"
        }
    }
}
