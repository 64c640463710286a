import HeraldDomain
import HeraldModel

/// Evernym/Verity as a sponsor's push service: Verity forwards a message for a sponsee
/// (`POST …/evernym/notify`) once per com method, and the sponsor registers sponsees'
/// com methods (`PUT …/evernym/sponsees/{id}`, a Registration record).
public struct EvernymSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .evernym }
    public var displayName: String { "Evernym/Verity" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "evernymNotify", path: "/evernym/notify", summary: "Evernym/Verity sponsor webhook",
            ingestSummary: "Verity's forward", bodySchema: Self.notifySchema, makeEvent: EvernymNotify.event)]
    }

    public var stateRoutes: [SourceStateRoute] { [EvernymSponsee.route] }

    /// A message goes to an `FCM:` com method that names no system: Android's handler gets the
    /// data alone, an iPhone the `evernym.message` alert.
    public func presentation(kind: String) -> PushPresentation {
        kind == "message" ? PushPresentation(iOSAlertTemplate: "evernym.message") : PushPresentation()
    }

    public var templates: [String: AppConfiguration.Template] {
        ["evernym.message": AppConfiguration.Template(title: "{msgSenderName}", body: "New message")]
    }

    public var kitNotes: String {
        "data carries msgId, relationshipDid, and msgType and msgSenderName when Verity gave them; the app downloads the message itself"
    }

    public var sample: SourceSample {
        SourceSample(name: "sponsor", target: .sponsee, path: "/evernym/notify") { target, id, _ throws(SampleTarget.Missing) in
            ["msgId": id, "msgType": "credOffer", "sponseeDetails": try target.need(target.sponsee, "--sponsee"),
             "relationshipDid": "did:sov:heraldctl", "metaData": ["msgType": "credOffer", "msgSenderName": "heraldctl"]]
        }
    }

    static let notifySchema = #"""
        type: object
        required: [msgId, sponseeDetails, relationshipDid]
        description: "metaData's values are optional from the sender's perspective: without a msgType anywhere the push is made with the default template"
        properties:
          msgId: { $ref: "#/components/schemas/SourceId" }
          msgType: { type: string, maxLength: 256, description: "Without it (or empty), metaData.msgType (Verity's own forward has only that), else none." }
          sponseeDetails:
            type: string
            minLength: 1
            maxLength: 4096
            description: "The sponsee's com method value (Verity forwards a message once per com method: the event id is evernym:<msgId>:<first 8 bytes of SHA-256 over sponseeDetails, hex>): FCM:<token> (HMS:, APNS: where the app has that provider) is pushed to directly; else the id of a sponsee registered with PUT /evernym/sponsees/{id}; else the SDK's config object as JSON text ({id, type, value}), read as that sponsee. A sponsee nobody registered: the event's status says no audience."
          relationshipDid: { type: string, minLength: 1, maxLength: 1024 }
          metaData:
            type: object
            properties:
              msgType: { type: string, maxLength: 256, description: "empty: absent" }
              msgSenderName: { type: string, maxLength: 1024, description: "empty: absent (Verity sends an empty name for a sender without one)" }
        """#
}
