import HeraldDomain
import HeraldModel

/// Herald's own API: an upstream that speaks no integration's dialect posts the canonical
/// `herald.event.v1` (`POST …/events`), naming its source, kind, audience, data and alert.
public struct APISource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .api }
    public var displayName: String { "Herald API" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "postEvent", path: "/events", summary: "the canonical herald.event.v1",
            ingestSummary: "the canonical event", bodySchema: ##"$ref: "#/components/schemas/Event""##, makeEvent: CanonicalEvent.event)]
    }

    public var kitNotes: String { "data as the event gave it; an alert when it named one" }

    public var sample: SourceSample {
        SourceSample(name: "event", target: .user, path: "/events") { target, id, _ throws(SampleTarget.Missing) in
            ["id": id, "source": "api", "kind": "test.push", "audience": ["users": [try target.need(target.user, "--user")]],
             "data": ["message": "A test push from heraldctl"]]
        }
    }
}
