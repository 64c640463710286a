import Crypto
import Foundation
import HeraldModel

/// Each integration's own request shape, checked field by field and turned into a
/// `herald.event.v1`. Field names are those the integrations use.
///
/// An event id is `<source>:<id>`: the integration's own id (Smart ID's `messageId`, ...)
/// namespaced by the source, so two integrations' ids never collide. A source that sends no
/// id (Upstra, Webcom) gets a fresh one, unless the caller sends an `Idempotency-Key`
/// header, which is then the id: a retried request is the same event, and two identical
/// messages are two events.
enum SourceAdapters {
    /// Event ids travel as AMQP `message_id` (at most 255 bytes) and in routing decisions.
    static let maxIdLength = TextLimits.eventId

    /// An integration's own id of its event (`key` of `body`): 1 to 200 visible ASCII characters.
    static func sourceId(_ body: JSONFields, _ key: String) throws(GatewayError) -> String {
        let id = try body.string(key, maxLength: maxIdLength)
        guard TextLimits.isEventId(id) else { throw .invalid(body.name(key), TextLimits.eventIdRule) }
        return id
    }

    /// A profile or push id (`key` of `body`) without the white space around it: 1 to 256
    /// characters once trimmed.
    static func trimmedId(_ body: JSONFields, _ key: String) throws(GatewayError) -> String {
        try trimmedId(try body.string(key, maxLength: TextLimits.long), field: body.name(key))
    }

    /// `id` without the white space around it, 1 to 256 characters once trimmed (`field` names
    /// it in the error).
    static func trimmedId(_ id: String, field: String) throws(GatewayError) -> String {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        guard TextLimits.fits(trimmed, maximum: TextLimits.identifier) else {
            throw .invalid(field, "must be 1 to \(TextLimits.identifier) characters besides surrounding white space")
        }
        return trimmed
    }

    /// The event id for `id` from `source`.
    static func eventId(_ source: EventSource, _ id: String) -> String {
        "\(source.rawValue):\(id)"
    }

    /// The id of an event whose body carries none: the `Idempotency-Key` (1 to 200 visible
    /// ASCII characters) when given, else a fresh one.
    static func eventId(_ source: EventSource, idempotencyKey: String?) throws(GatewayError) -> String {
        guard let key = idempotencyKey else { return eventId(source, UUID().uuidString.lowercased()) }
        guard TextLimits.isEventId(key) else {
            throw .invalid("Idempotency-Key", TextLimits.eventIdRule)
        }
        return eventId(source, key)
    }

    /// Smart ID `POST …/smartid/push`: `{messageId, pushId, requestor, type: AUTH|SIGN, timeToLive?}`.
    /// The push carries `pushId` (an app holds several profiles and must know which one is
    /// asked), trimmed of surrounding white space as on registration.
    ///
    /// Smart ID's Digital Access component "will post requests for all known profile IDs": one
    /// request per profile, each with the same `messageId`. The event id is therefore
    /// `smartid:<messageId>:<digest of pushId>` (`smartIDEventId`), so each profile is pushed,
    /// and a repeat of one (messageId, pushId) is still one push.
    static func smartID(_ body: JSONFields, app: String, now: Date) throws(GatewayError) -> NotificationEvent {
        let messageId = try sourceId(body, "messageId")
        // Trimmed: the seed's own example pushId starts with a space.
        let pushId = try trimmedId(body, "pushId")
        let requestor = try body.string("requestor", maxLength: 1024)
        let type = try body.oneOf("type", ["AUTH", "SIGN"])
        let ttl = try body.optionalInt("timeToLive")
        if let ttl, let problem = DeliveryOptions.problem(ttl: ttl) { throw .invalid("timeToLive", problem) }
        return NotificationEvent(
            id: smartIDEventId(messageId: messageId, pushId: pushId), app: app, source: .smartID, kind: type.lowercased(), occurredAt: now,
            audience: .pushIds([pushId]), context: ["requestor": requestor, "pushId": pushId],
            data: ["messageId": messageId, "pushId": pushId, "requestor": requestor, "type": type],
            options: DeliveryOptions(ttlSeconds: ttl, priority: .high))
    }

    /// Evernym/Verity sponsor `POST …/evernym/notify`: `{msgId, msgType?, sponseeDetails,
    /// relationshipDid, metaData?: {msgType?, msgSenderName?}}`; `msgType` from the top level,
    /// else `metaData.msgType` (Verity's own forward has only that), else none; an empty
    /// `msgType` or `msgSenderName` is absent (Verity sends `""` for a sender without a name).
    /// `sponseeDetails` is the value the sponsee gave `update_com_method`: one `comMethod` can
    /// push to directly (`FCM:<token>`) is the audience as it is, with no registration; else
    /// the id of a sponsee registered through `PUT …/evernym/sponsees/{id}`, whose com method
    /// Registration knows; else the SDK's config object as JSON text (`{id, type, value}`),
    /// its value when Herald can push to it, else read as that sponsee.
    ///
    /// Verity forwards a message once per com method of the sponsee, each with the same
    /// `msgId`: the event id is `evernym:<msgId>:<digest of sponseeDetails>`, so each com
    /// method is pushed, and a repeat of one forward is still one push.
    static func evernym(
        _ body: JSONFields, app: String, now: Date, comMethod: (String) -> DirectToken?
    ) throws(GatewayError) -> NotificationEvent {
        let msgId = try sourceId(body, "msgId")
        let sponsee = try body.string("sponseeDetails", maxLength: TextLimits.long)
        let relationship = try body.string("relationshipDid", maxLength: 1024)
        var msgType = try body.optionalString("msgType", maxLength: 256, emptyIsAbsent: true)
        var data = ["msgId": msgId, "relationshipDid": relationship]
        if let meta = try body.optionalNested("metaData") {
            if let name = try meta.optionalString("msgSenderName", maxLength: 1024, emptyIsAbsent: true) { data["msgSenderName"] = name }
            let earlier = try meta.optionalString("msgType", maxLength: 256, emptyIsAbsent: true)
            msgType = msgType ?? earlier
        }
        // "Values are optional from the sender's perspective": without a type the push is made
        // with the default template and no msgType.
        if let msgType { data["msgType"] = msgType }
        let audience: Audience
        let context: [String: String]
        // The SDK's config object, `{id, type, value}`: its value when that is a com method
        // Herald can push to (type 3 or 4), else the sponsee registered under its id.
        let config = sponsee.hasPrefix("{") ? (try? JSONSerialization.jsonObject(with: Data(sponsee.utf8))) as? [String: Any] : nil
        let configId = (config?["id"] as? String).flatMap { TextLimits.fits($0, maximum: TextLimits.identifier) ? $0 : nil }
        let configPushes = [3, 4].contains(config?["type"] as? Int ?? 0)
        if let token = comMethod(sponsee) ?? (configPushes ? (config?["value"] as? String).flatMap(comMethod) : nil) {
            // The token itself stays out of the context, which the event's status shows.
            audience = .tokens([token])
            context = ["comMethod": token.platform.rawValue.uppercased()]
        } else {
            // A sponsee id; one nobody registered resolves to no audience, which the
            // event's status says.
            let id = configId ?? sponsee
            audience = .users([id])
            // For an app in webhook mode, whose forward carries the message as Evernym sent it.
            let sent = body.object.filter { Self.evernymFields.contains($0.key) }
            let text = (try? JSONSerialization.data(withJSONObject: sent, options: [.sortedKeys, .withoutEscapingSlashes])).map { String(decoding: $0, as: UTF8.self) }
            context = ["sponseeId": id].merging(text.map { [DispatchRequest.WebhookForward.upstreamMessageKey: $0] } ?? [:]) { $1 }
        }
        return NotificationEvent(
            id: evernymEventId(msgId: msgId, sponseeDetails: sponsee), app: app, source: .evernym, kind: "message", occurredAt: now,
            audience: audience, context: context, data: data)
    }

    /// `evernym:<msgId>:<digest of sponseeDetails>`: one event per message and com method.
    static func evernymEventId(msgId: String, sponseeDetails: String) -> String {
        eventId(.evernym, "\(msgId):\(shortDigest(sponseeDetails))")
    }

    /// `smartid:<messageId>:<digest of pushId>`: one event per request and profile.
    static func smartIDEventId(messageId: String, pushId: String) -> String {
        eventId(.smartID, "\(messageId):\(shortDigest(pushId))")
    }

    /// The first 8 bytes of SHA-256 over `text`, in hex: a part of an event id made of a value
    /// that may be long or hold characters an event id may not.
    static func shortDigest(_ text: String) -> String {
        Hex.encode(SHA256.hash(data: Data(text.utf8)).prefix(8))
    }

    /// The fields of Evernym's forward, kept as sent for a type-3 sponsee's forward.
    static let evernymFields: Set = ["msgId", "msgType", "sponseeDetails", "relationshipDid", "metaData"]

    /// Upstra/Amity `POST …/upstra/events`: `{event, channel {id, displayName?}, actor {id,
    /// displayName?}, message? {type, text?}, recipients}`; the alert uses the chat templates
    /// (a text's body, "Image Message", "Special message" for any other type), whose
    /// placeholders fall back to the templates' own words for an unnamed channel (a one-to-one
    /// conversation often has no name), an actor without a display name and an empty text.
    /// Upstra sends no id (see the type's notes). The actor is left out of the recipients
    /// unless the app says otherwise (`notifyActor`): nobody is notified of their own act.
    static func upstra(_ body: JSONFields, idempotencyKey: String?, app: String, notifyActor: Bool, now: Date) throws(GatewayError) -> NotificationEvent {
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
            id: try eventId(.upstra, idempotencyKey: idempotencyKey), app: app, source: .upstra, kind: kind, occurredAt: now, audience: .users(recipients),
            context: context, data: data, alert: .template(name: kind, args: args))
    }

    /// Sudo email `POST …/email/messages`: the received message's metadata; encrypted by
    /// default for the address's key.
    static func email(_ body: JSONFields, app: String, now: Date) throws(GatewayError) -> NotificationEvent {
        let addressId = try body.string("emailAddressId", maxLength: 256)
        let sudoId = try body.string("sudoId", maxLength: 256)
        let owner = try body.string("owner", maxLength: 256)
        let messageId = try sourceId(body, "messageId")
        // "On receipt of each email message": an empty sender or subject is pushed as it is.
        let from = try body.optionalString("from", maxLength: 1024, emptyIsAbsent: true) ?? ""
        let subject = try body.optionalString("subject", maxLength: 2048, emptyIsAbsent: true) ?? ""
        let receivedAt = try body.string("receivedAt", maxLength: 64)
        guard HeraldJSON.parseTimestamp(receivedAt) != nil else { throw .invalid("receivedAt", "must be an ISO-8601 UTC timestamp") }
        return NotificationEvent(
            id: eventId(.sudoEmail, messageId), app: app, source: .sudoEmail, kind: "email.received", occurredAt: now, audience: .emailAddressId(addressId),
            context: ["emailAddressId": addressId, "sudoId": sudoId, "owner": owner],
            data: ["emailAddressId": addressId, "sudoId": sudoId, "owner": owner, "messageId": messageId, "from": from, "subject": subject, "receivedAt": receivedAt],
            options: DeliveryOptions(encryption: .required))
    }

    /// Webcom datasync `POST …/webcom/events`: `{path, event, value?, added?, changed?,
    /// removed? (an object, or a list of the removed children's ids), reason?, hideData?,
    /// recipients}`; values travel as JSON text. Every push
    /// carries the app id (Webcom's clients read `event.appId`), and a revocation its reason
    /// (`subscriptionRevokedReason` when the sender gave none). Webcom sends no id (see the
    /// type's notes).
    static func webcom(_ body: JSONFields, idempotencyKey: String?, app: String, now: Date) throws(GatewayError) -> NotificationEvent {
        let path = try body.string("path", maxLength: 2048)
        let kind = try body.oneOf("event", ["value.changed", "children.updated", "subscription.revoked"])
        let recipients = try body.strings("recipients")
        let hideData = try body.optionalBool("hideData") ?? false
        let reason = try body.optionalString("reason", maxLength: 1024)
        var data = ["path": path, "appId": app]
        if kind == "subscription.revoked" {
            data["reason"] = reason ?? subscriptionRevokedReason
        } else if reason != nil {
            throw .invalid("reason", "only a subscription.revoked event has a reason")
        }
        for field in ["added", "changed"] { _ = try body.optionalNested(field) }
        // The removed children: an object of them, or the list of their ids as the seed's SDK
        // gives them.
        if body.object["removed"] is [Any] { _ = try body.strings("removed", allowEmpty: true) } else { _ = try body.optionalNested("removed") }
        for field in ["value", "added", "changed", "removed"] {
            if let text = body.jsonText(field) { data[field] = text }
        }
        return NotificationEvent(
            id: try eventId(.webcom, idempotencyKey: idempotencyKey), app: app, source: .webcom, kind: kind, occurredAt: now, audience: .users(recipients),
            context: ["path": path], data: data, options: DeliveryOptions(hideData: hideData))
    }

    /// The reason of a Webcom revocation whose sender gave none.
    static let subscriptionRevokedReason = "subscription revoked"

    /// The canonical `POST …/events`: a `herald.event.v1` whose `app` is the path's (a
    /// body's own `app` is ignored) and whose
    /// id is namespaced by its source like the others.
    static func canonical(_ body: JSONFields, raw: Data, app: String, now: Date) throws(GatewayError) -> NotificationEvent {
        if let null = JSONFields.firstNull(in: body.object, at: "", known: JSONFields.eventFields) { throw .invalid(null, "must not be null (leave it out instead)") }
        // The path names the app (the key was checked against it); a body's own is replaced.
        // Without occurredAt, it occurred now (to the millisecond, as a timestamp says it).
        let postedAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        do {
            var event = try HeraldJSON.decode(NotificationEvent.self, from: raw, userInfo: [NotificationEvent.postedApp: app, NotificationEvent.postedAt: postedAt])
            guard TextLimits.isEventId(event.id) else { throw GatewayError.invalid("id", TextLimits.eventIdRule) }
            event.id = eventId(event.source, event.id)
            guard event.kind.utf8.count <= 128, event.kind.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                throw GatewayError.invalid("kind", "must be at most 128 letters, digits, '.', '_' or '-'")
            }
            return event
        } catch let error as GatewayError {
            throw error
        } catch let error as DecodingError {
            let detail = HeraldJSON.describe(error)
            let field = detail.split(separator: ":").first.map(String.init) ?? "body"
            throw GatewayError(400, "Invalid request", detail, field: field)
        } catch {
            throw GatewayError(400, "Invalid request", "\(error)")
        }
    }
}
