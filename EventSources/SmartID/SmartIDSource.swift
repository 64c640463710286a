import HeraldDomain
import HeraldModel

/// Smart ID's Digital Access component: it posts a push request per profile of a sign-in or
/// signing (`POST …/smartid/push`); the app finds the request by its profile (push) id.
public struct SmartIDSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .smartID }
    public var displayName: String { "Smart ID" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "smartIDPush", path: "/smartid/push", summary: "Smart ID push request",
            ingestSummary: "a Smart ID push request", bodySchema: Self.pushSchema, makeEvent: SmartIDPush.event)]
    }

    public var stateRoutes: [SourceStateRoute] { [SmartIDDevice.route] }

    /// A sign-in or signing request must reach a person: on iOS an alert (`smartid.auth`,
    /// `smartid.sign`, time-sensitive), never a background push, which Apple throttles and
    /// never delivers to a force-quit app; Push Kit files it under `ACCOUNT`.
    public func presentation(kind: String) -> PushPresentation {
        ["auth", "sign"].contains(kind)
            ? PushPresentation(iOSAlertTemplate: "smartid.\(kind)", interruptionLevel: "time-sensitive", category: "ACCOUNT")
            : PushPresentation(category: "ACCOUNT")
    }

    public var templates: [String: AppConfiguration.Template] {
        [
            "smartid.auth": AppConfiguration.Template(title: nil, body: "{requestor}: confirm your sign-in"),
            "smartid.sign": AppConfiguration.Template(title: nil, body: "{requestor}: sign a document"),
        ]
    }

    /// A request is useless once the login or signature it asks for has timed out: it waits
    /// at the provider five minutes, not four weeks. Smart ID's `timeToLive` "will override
    /// configured value": the app's `defaultTTL` is that configured value.
    public var defaultTTLs: [String: Int] { ["auth": 300, "sign": 300] }

    public var kitNotes: String {
        "data carries messageId, pushId (the profile asked), requestor and type (AUTH or SIGN); on iOS an alert the app may replace"
    }

    public var sample: SourceSample {
        SourceSample(name: "smartid", target: .pushId, path: "/smartid/push") { target, id, _ throws(SampleTarget.Missing) in
            ["messageId": id, "pushId": try target.need(target.pushId, "--push-id"), "requestor": "heraldctl", "type": "AUTH", "timeToLive": 120]
        }
    }

    static let pushSchema = #"""
        type: object
        required: [messageId, pushId, requestor, type]
        properties:
          messageId: { $ref: "#/components/schemas/SourceId" }
          pushId: { $ref: "#/components/schemas/ProfileId" }
          requestor: { type: string, minLength: 1, maxLength: 1024 }
          type: { enum: [AUTH, SIGN] }
          timeToLive: { type: integer, minimum: 0, maximum: 2419200, description: "Overrides the configured value: the app's defaultTTL for Smart ID (Herald's own is 300 s)." }
        """#
}
