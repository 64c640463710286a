import HeraldDomain
import HeraldModel

/// Upstra/Amity chat: the chat server posts each channel and message event with the users to
/// notify (`POST …/upstra/events`); its SDKs register and unregister devices themselves.
public struct UpstraSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .upstra }
    public var displayName: String { "Upstra/Amity" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "upstraEvents", path: "/upstra/events", summary: "Upstra/Amity chat event",
            ingestSummary: "an Upstra/Amity chat event", bodySchema: Self.eventsSchema, takesIdempotencyKey: true,
            bodyLimit: .init(bytes: 2 * 1024 * 1024, variable: "HERALD_GATEWAY_UPSTRA_BODY_LIMIT"), makeEvent: UpstraEvent.event)]
    }

    /// A chat push is a user-visible message: high priority on Android, the default sound on
    /// iOS, and Push Kit's `IM` category.
    public func presentation(kind: String) -> PushPresentation { PushPresentation(isChat: true, category: "IM") }

    /// The chat defaults; their placeholders fall back to the templates' own words for an
    /// unnamed channel (a one-to-one conversation often has no name), an actor without a
    /// display name and an empty text.
    public var templates: [String: AppConfiguration.Template] {
        [
            "channel.created": AppConfiguration.Template(title: "{channel|New chat}", body: "You're now member of {channel|a new chat}!"),
            "member.joined": AppConfiguration.Template(title: "{user|Someone}", body: "{user|Someone} has joined {channel|the chat}"),
            "message.created": AppConfiguration.Template(title: "{user|Someone} ({channel|Chat})", body: "{text|New message}"),
            "message.created.image": AppConfiguration.Template(title: "{user|Someone} ({channel|Chat})", body: "Image Message"),
            "message.created.other": AppConfiguration.Template(title: "{user|Someone} ({channel|Chat})", body: "Special message"),
        ]
    }

    public var kitNotes: String {
        "an alert from the chat templates; data carries channelId, actorId and messageType"
    }

    public var sample: SourceSample {
        SourceSample(name: "chat", target: .user, path: "/upstra/events", sendsIdempotencyKey: true) { target, _, _ throws(SampleTarget.Missing) in
            ["event": "message.created", "channel": ["id": "heraldctl", "displayName": "heraldctl"],
             "actor": ["id": "heraldctl", "displayName": "heraldctl"], "message": ["type": "text", "text": "A test message from heraldctl"],
             "recipients": [try target.need(target.user, "--user")]]
        }
    }

    static let eventsSchema = #"""
        type: object
        required: [event, channel, actor, recipients]
        description: message is required for message.created
        anyOf: [{ properties: { event: { enum: [channel.created, member.joined] } } }, { required: [message] }]
        properties:
          event: { enum: [channel.created, member.joined, message.created] }
          channel: { type: object, required: [id], properties: { id: { $ref: "#/components/schemas/Id" }, displayName: { type: string, maxLength: 1024, description: "absent or empty (a one-to-one conversation): the templates' own words" } } }
          actor: { type: object, required: [id], properties: { id: { $ref: "#/components/schemas/Id" }, displayName: { type: string, maxLength: 1024, description: "absent or empty: the templates' own words" } } }
          message: { type: object, required: [type], properties: { type: { type: string, minLength: 1, maxLength: 64, description: "text and image have their own bodies; any other type (file, video, custom, ...) is 'Special message'" }, text: { type: string, description: "any length: shortened (with an ellipsis) to what the provider takes; empty: the template's own words" } } }
          recipients: { $ref: "#/components/schemas/Ids", description: "the users to notify (a body up to 2 MiB: HERALD_GATEWAY_UPSTRA_BODY_LIMIT); the actor among them is left out unless the app's notifyActor is true" }
        """#
}
