import Foundation
import HeraldDomain
import HeraldModel
import JSONKit

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
enum EvernymNotify {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let msgId = try SourceEventIds.sourceId(body, "msgId")
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
        let config = sponsee.hasPrefix("{") ? (try? JSONValue(json: Data(sponsee.utf8)))?.objectValue : nil
        let configId = config?["id"]?.stringValue.flatMap { TextLimits.fits($0, maximum: TextLimits.identifier) ? $0 : nil }
        let configPushes = [3, 4].contains(config?["type"]?.intValue ?? 0)
        if let token = request.comMethod(sponsee) ?? (configPushes ? config?["value"]?.stringValue.flatMap(request.comMethod) : nil) {
            // The token itself stays out of the context, which the event's status shows.
            audience = .tokens([token])
            context = ["comMethod": token.platform.rawValue.uppercased()]
        } else {
            // A sponsee id; one nobody registered resolves to no audience, which the
            // event's status says.
            let id = configId ?? sponsee
            audience = .users([id])
            // For an app in webhook mode, whose forward carries the message as Evernym sent it.
            let sent = JSONValue.object(body.object.filter { fields.contains($0.key) })
            context = ["sponseeId": id, DispatchRequest.WebhookForward.upstreamMessageKey: sent.text]
        }
        return NotificationEvent(
            id: eventId(msgId: msgId, sponseeDetails: sponsee), app: request.app, source: .evernym, kind: "message", occurredAt: request.now,
            audience: audience, context: context, data: data)
    }

    /// `evernym:<msgId>:<digest of sponseeDetails>`: one event per message and com method.
    static func eventId(msgId: String, sponseeDetails: String) -> String {
        SourceEventIds.eventId(.evernym, "\(msgId):\(SourceEventIds.shortDigest(sponseeDetails))")
    }

    /// The fields of Evernym's forward, kept as sent for a type-3 sponsee's forward.
    static let fields: Set = ["msgId", "msgType", "sponseeDetails", "relationshipDid", "metaData"]
}
