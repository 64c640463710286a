import HeraldDomain
import HeraldModel

/// Webcom datasync: the data server posts each change on a path with the users to notify
/// (`POST …/webcom/events`); values travel as JSON text.
public struct WebcomSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .webcom }
    public var displayName: String { "Webcom" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "webcomEvents", path: "/webcom/events",
            summary: "Webcom datasync event (a body up to 1 MiB: values over the providers' limit arrive degraded)",
            ingestSummary: "a Webcom datasync event", bodySchema: Self.eventsSchema, takesIdempotencyKey: true,
            bodyLimit: .init(bytes: 1024 * 1024, variable: "HERALD_GATEWAY_WEBCOM_BODY_LIMIT"), makeEvent: WebcomEvent.event)]
    }

    /// An event with an alert is a user-visible message, like chat.
    public func presentation(kind: String) -> PushPresentation { PushPresentation(isChat: true, category: "IM") }

    /// Webcom's iOS guide decodes every push in a notification service extension.
    public var iOSDecodesInExtension: Bool { true }

    public var kitNotes: String {
        "data carries path, appId and the values as JSON text (value, added, changed, removed); a revocation its reason"
    }

    public var sample: SourceSample {
        SourceSample(name: "datasync", target: .user, path: "/webcom/events", sendsIdempotencyKey: true) { target, id, _ throws(SampleTarget.Missing) in
            ["path": "/heraldctl/sample", "event": "value.changed", "value": "sample \(id)", "recipients": [try target.need(target.user, "--user")]]
        }
    }

    static let eventsSchema = #"""
        type: object
        required: [path, event, recipients]
        properties:
          path: { type: string, minLength: 1, maxLength: 2048 }
          event: { enum: [value.changed, children.updated, subscription.revoked] }
          value: { description: any JSON value (null included), passed on as JSON text }
          added: { type: object }
          changed: { type: object }
          removed: { oneOf: [{ type: object }, { type: array, items: { $ref: "#/components/schemas/Id" }, maxItems: 100000 }], description: "the removed children: an object of them, or the list of their ids (the seed SDK's shape)" }
          reason: { type: string, minLength: 1, maxLength: 1024, description: "Why a subscription.revoked event's subscription ended; without it, \"subscription revoked\". Only for subscription.revoked." }
          hideData: { type: boolean }
          recipients: { $ref: "#/components/schemas/Ids" }
        not: { required: [reason], properties: { event: { enum: [value.changed, children.updated] } } }
        """#
}
