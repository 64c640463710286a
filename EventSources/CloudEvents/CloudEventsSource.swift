import HeraldDomain
import HeraldModel

/// CloudEvents 1.0 over HTTP, structured JSON mode (`POST …/cloudevents`, `application/
/// cloudevents+json`): any upstream that emits CloudEvents (a Knative or Dapr broker, an
/// Event Grid subscription, a service with a CloudEvents SDK) notifies users without learning
/// Herald's own event. The event's `type` is the kind, its extension `heraldusers` the users
/// to notify, its `data` what the app receives; an app's template `cloudevents.<type>` gives
/// it an alert.
public struct CloudEventsSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .cloudEvents }
    public var displayName: String { "CloudEvents" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "cloudEvent", path: "/cloudevents", summary: "a CloudEvents 1.0 event in structured JSON mode",
            ingestSummary: "a CloudEvents 1.0 event", bodySchema: Self.schema, makeEvent: CloudEvent.event)]
    }

    public var kitNotes: String {
        "data holds the CloudEvent's data (an object's members, each value not a string as JSON text; any other data as JSON text under data), and ceSource, ceId and ceSubject"
    }

    public var sample: SourceSample {
        SourceSample(name: "cloudevents", target: .user, path: "/cloudevents") { target, id, now throws(SampleTarget.Missing) in
            ["specversion": "1.0", "id": id, "source": "/heraldctl", "type": "com.example.heraldctl.sample", "time": HeraldJSON.formatTimestamp(now),
             "datacontenttype": "application/json", "heraldusers": try target.need(target.user, "--user"),
             "data": ["message": "A test CloudEvent from heraldctl"]]
        }
    }

    static let schema = #"""
        type: object
        required: [specversion, id, source, type, heraldusers]
        description: "A CloudEvent (https://github.com/cloudevents/spec, JSON format); other extension attributes are accepted and left out"
        properties:
          specversion: { enum: ["1.0"] }
          id: { $ref: "#/components/schemas/SourceId" }
          source: { type: string, minLength: 1, maxLength: 2048, description: "a URI-reference; with id it names the event (the event id is cloudevents:<first 8 bytes of SHA-256 over source, hex>:<id>)" }
          type: { type: string, pattern: "^[A-Za-z0-9._-]{1,128}$", description: "the event's kind; an app's template cloudevents.<type> gives it an alert" }
          subject: { type: string, minLength: 1, maxLength: 1024 }
          time: { type: string, format: date-time, description: "RFC 3339; when the event occurred (its TTL counts from then)" }
          datacontenttype: { type: string, minLength: 1, maxLength: 256 }
          dataschema: { type: string, minLength: 1, maxLength: 2048 }
          data: { description: "any JSON value: an object's members become the push's data" }
          data_base64: { type: string, description: "binary data in base64, passed on as it is under data_base64 (empty: no bytes)" }
          heraldusers: { type: string, minLength: 1, maxLength: 65536, pattern: "^[^,]{1,256}(,[^,]{1,256})*$", description: "extension attribute: the users to notify, user ids separated by commas, taken as written" }
        not: { required: [data, data_base64] }
        """#
}

extension EventSource {
    /// CloudEvents 1.0 events, structured JSON mode.
    public static let cloudEvents: EventSource = "cloudevents"
}
