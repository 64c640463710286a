import HeraldDomain
import HeraldModel

/// Smart ID `POST …/smartid/push`: `{messageId, pushId, requestor, type: AUTH|SIGN, timeToLive?}`.
/// The push carries `pushId` (an app holds several profiles and must know which one is
/// asked), trimmed of surrounding white space as on registration.
///
/// Smart ID's Digital Access component "will post requests for all known profile IDs": one
/// request per profile, each with the same `messageId`. The event id is therefore
/// `smartid:<messageId>:<digest of pushId>` (`eventId`), so each profile is pushed, and a
/// repeat of one (messageId, pushId) is still one push.
enum SmartIDPush {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let messageId = try SourceEventIds.sourceId(body, "messageId")
        // Trimmed: the seed's own example pushId starts with a space.
        let pushId = try SourceEventIds.trimmedId(body, "pushId")
        let requestor = try body.string("requestor", maxLength: 1024)
        let type = try body.oneOf("type", ["AUTH", "SIGN"])
        let ttl = try body.optionalInt("timeToLive")
        if let ttl, let problem = DeliveryOptions.problem(ttl: ttl) { throw .invalid("timeToLive", problem) }
        return NotificationEvent(
            id: eventId(messageId: messageId, pushId: pushId), app: request.app, source: .smartID, kind: type.lowercased(), occurredAt: request.now,
            audience: .pushIds([pushId]), context: ["requestor": requestor, "pushId": pushId],
            data: ["messageId": messageId, "pushId": pushId, "requestor": requestor, "type": type],
            options: DeliveryOptions(ttlSeconds: ttl, priority: .high))
    }

    /// `smartid:<messageId>:<digest of pushId>`: one event per request and profile.
    static func eventId(messageId: String, pushId: String) -> String {
        SourceEventIds.eventId(.smartID, "\(messageId):\(SourceEventIds.shortDigest(pushId))")
    }
}
