import Foundation
import HeraldModel
import JSONKit

/// The body of a forward, Standard Webhooks' shape: `type` (`<source>.<kind>`), `timestamp`
/// (when the event occurred) and `data`. The body is the same on every attempt; only the
/// `webhook-timestamp` header and the signature change.
public struct WebhookPayload: Codable, Sendable, Hashable {
    public var type: String
    public var timestamp: Date
    public var data: Content

    /// What the tenant learns of the event and whom it is for.
    public struct Content: Codable, Sendable, Hashable {
        public var eventId: String
        /// Also the `webhook-id` header: stable across retries, for de-duplication.
        public var deliveryId: String
        public var app: String
        public var source: EventSource
        public var kind: String
        public var recipient: WebhookRecipient
        public var context: [String: String]
        /// The event's own data.
        public var data: [String: String]
        /// The alert as rendered for the recipient's locale, when the event has one.
        public var alert: DispatchRequest.Notification?
        /// The upstream's own message as it sent it, where the gateway kept it (Evernym's
        /// forward to a type-3 sponsee: `{msgId, msgType, sponseeDetails, relationshipDid,
        /// metaData}`), so a handler written against the upstream's documents reads it here.
        public var forwarded: JSONValue?
    }

    /// The payload of a webhook dispatch request; nil if the request carries no forward.
    public init?(_ request: DispatchRequest) {
        guard let forward = request.forward else { return nil }
        type = "\(forward.source.rawValue).\(request.kind)"
        timestamp = forward.occurredAt
        var context = forward.context
        let forwarded = context.removeValue(forKey: DispatchRequest.WebhookForward.upstreamMessageKey).flatMap { try? JSONValue(json: Data($0.utf8)) }
        data = Content(
            eventId: request.eventId, deliveryId: request.deliveryId, app: request.app, source: forward.source, kind: request.kind,
            recipient: forward.recipient, context: context, data: request.data, alert: request.notification, forwarded: forwarded)
    }

    /// The JSON body (sorted keys, timestamps with milliseconds).
    public func body() throws -> Data {
        try HeraldJSON.encode(self)
    }
}
