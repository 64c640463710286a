import Foundation
import HeraldDomain
import HeraldModel

/// A CloudEvent in the JSON event format (CloudEvents 1.0, structured content mode), read
/// into a Herald event:
/// - `specversion` must be `1.0`; `id` and `source` name the event, so its id is
///   `cloudevents:<digest of source>:<id>` and a repeat of one is still one push;
/// - `type` is the kind, `time` (RFC 3339) when it occurred;
/// - the extension attribute `heraldusers` lists the users to notify, separated by commas and
///   taken as written (CloudEvents' extension values are strings);
/// - `data`: an object's members become the push's data (a value that is not a string as
///   JSON text), any other value is JSON text under `data`; `data_base64` is passed on as it is.
enum CloudEvent {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let version = try body.string("specversion", maxLength: 16)
        guard version == "1.0" else { throw .invalid("specversion", "must be 1.0, not \"\(version)\"") }
        let id = try SourceEventIds.sourceId(body, "id")
        let origin = try body.string("source", maxLength: 2048)
        let type = try body.string("type", maxLength: 128)
        guard type.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw .invalid("type", "must be at most 128 letters, digits, '.', '_' or '-' (it is the event's kind)")
        }
        let subject = try body.optionalString("subject", maxLength: 1024)
        // Read to be checked: CloudEvents' optional attributes are non-empty strings.
        _ = try body.optionalString("datacontenttype", maxLength: 256)
        _ = try body.optionalString("dataschema", maxLength: 2048)
        var occurredAt = request.now
        if let time = try body.optionalString("time", maxLength: 64) {
            guard let parsed = rfc3339(time) else { throw .invalid("time", "must be an RFC 3339 timestamp") }
            occurredAt = parsed
        }
        let listed = try body.string("heraldusers", maxLength: 65536)
        let users = listed.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard users.allSatisfy({ TextLimits.fits($0, maximum: TextLimits.identifier) }) else {
            throw .invalid("heraldusers", "must list the users to notify: user ids of 1 to \(TextLimits.identifier) characters, separated by commas")
        }
        if body.has("data") && body.has("data_base64") { throw .invalid("data_base64", "a CloudEvent has data or data_base64, not both") }
        var data = ["ceSource": origin, "ceId": id]
        if let subject { data["ceSubject"] = subject }
        if body.has("data_base64") {
            // Binary data as base64, passed on as it is; empty is no bytes.
            data["data_base64"] = try body.optionalString("data_base64", maxLength: Int.max, emptyIsAbsent: true) ?? ""
        } else if let object = body.object["data"]?.objectValue {
            let fields = JSONFields(object: object, path: "data")
            for key in object.keys where !["ceSource", "ceId", "ceSubject"].contains(key) {
                if let text = fields.jsonText(key) { data[key] = text }
            }
        } else if let text = body.jsonText("data") {
            data["data"] = text
        }
        return NotificationEvent(
            id: SourceEventIds.eventId(.cloudEvents, "\(SourceEventIds.shortDigest(origin)):\(id)"), app: request.app, source: .cloudEvents,
            kind: type, occurredAt: occurredAt, audience: .users(Array(Set(users)).sorted()),
            context: ["ceSource": origin, "ceType": type].merging(subject.map { ["ceSubject": $0] } ?? [:]) { $1 }, data: data)
    }

    /// An RFC 3339 timestamp (`2026-12-07T18:46:02.118380+00:00`, `…Z`), any number of
    /// fractional digits; nil for anything else.
    static func rfc3339(_ text: String) -> Date? {
        let pattern = #/^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/#
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let whole = formatter.date(from: "\(match.1.uppercased())\(match.3.uppercased())") else { return nil }
        return whole.addingTimeInterval(match.2.flatMap { Double("0" + $0) } ?? 0)
    }
}
