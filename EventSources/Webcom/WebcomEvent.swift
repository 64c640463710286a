import HeraldDomain
import HeraldModel

/// Webcom datasync `POST …/webcom/events`: `{path, event, value?, added?, changed?,
/// removed? (an object, or a list of the removed children's ids), reason?, hideData?,
/// recipients}`; values travel as JSON text. Every push carries the app id (Webcom's clients
/// read `event.appId`), and a revocation its reason (`subscriptionRevokedReason` when the
/// sender gave none). Webcom sends no id (`SourceEventIds`).
enum WebcomEvent {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let path = try body.string("path", maxLength: 2048)
        let kind = try body.oneOf("event", ["value.changed", "children.updated", "subscription.revoked"])
        let recipients = try body.strings("recipients")
        let hideData = try body.optionalBool("hideData") ?? false
        let reason = try body.optionalString("reason", maxLength: 1024)
        var data = ["path": path, "appId": request.app]
        if kind == "subscription.revoked" {
            data["reason"] = reason ?? subscriptionRevokedReason
        } else if reason != nil {
            throw .invalid("reason", "only a subscription.revoked event has a reason")
        }
        for field in ["added", "changed"] { _ = try body.optionalNested(field) }
        // The removed children: an object of them, or the list of their ids as the seed's SDK
        // gives them.
        if body.object["removed"]?.arrayValue != nil { _ = try body.strings("removed", allowEmpty: true) } else { _ = try body.optionalNested("removed") }
        for field in ["value", "added", "changed", "removed"] {
            if let text = body.jsonText(field) { data[field] = text }
        }
        return NotificationEvent(
            id: try SourceEventIds.eventId(.webcom, idempotencyKey: request.idempotencyKey), app: request.app, source: .webcom, kind: kind,
            occurredAt: request.now, audience: .users(recipients), context: ["path": path], data: data, options: DeliveryOptions(hideData: hideData))
    }

    /// The reason of a Webcom revocation whose sender gave none.
    static let subscriptionRevokedReason = "subscription revoked"
}
