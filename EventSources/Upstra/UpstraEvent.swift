import HeraldDomain
import HeraldModel

/// Upstra/Amity `POST …/upstra/events`: `{event, channel {id, displayName?}, actor {id,
/// displayName?}, message? {type, text?}, recipients}`; the alert uses the chat templates
/// (a text's body, "Image Message", "Special message" for any other type). Upstra sends no
/// id (`SourceEventIds`). The actor is left out of the recipients unless the app says
/// otherwise (`notifyActor`): nobody is notified of their own act.
enum UpstraEvent {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let notifyActor = request.appConfiguration?.notifyActor ?? false
        let kind = try body.oneOf("event", ["channel.created", "member.joined", "message.created"])
        let channel = try body.nested("channel")
        let channelId = try channel.string("id", maxLength: 256)
        let channelName = try channel.optionalString("displayName", maxLength: 1024, emptyIsAbsent: true)
        let actor = try body.nested("actor")
        let actorId = try actor.string("id", maxLength: 256)
        let actorName = try actor.optionalString("displayName", maxLength: 1024, emptyIsAbsent: true)
        let listed = try body.strings("recipients")
        let recipients = notifyActor ? listed : listed.filter { $0 != actorId }
        var args: [String: String] = [:]
        if let channelName { args["channel"] = channelName }
        if let actorName { args["user"] = actorName }
        var context = ["channelId": channelId, "actorId": actorId]
        var data = ["channelId": channelId, "actorId": actorId]
        if let message = try body.optionalNested("message") {
            // Any type: text and image have their own bodies, every other "Special message".
            let type = try message.string("type", maxLength: 64)
            // Any length: a text longer than the provider takes is shortened when the push is made.
            if let text = try message.optionalString("text", maxLength: Int.max, emptyIsAbsent: true) { args["text"] = text }
            args["messageType"] = type
            context["messageType"] = type
            data["messageType"] = type
        } else if kind == "message.created" {
            throw .invalid("message", "is required for message.created")
        }
        return NotificationEvent(
            id: try SourceEventIds.eventId(.upstra, idempotencyKey: request.idempotencyKey), app: request.app, source: .upstra, kind: kind,
            occurredAt: request.now, audience: .users(recipients), context: context, data: data, alert: .template(name: kind, args: args))
    }
}
