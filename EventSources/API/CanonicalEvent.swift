import Foundation
import HeraldDomain
import HeraldModel

/// The canonical `POST …/events`: a `herald.event.v1` whose `app` is the path's (a body's own
/// `app` is ignored), whose source is one this deployment serves, and whose id is namespaced
/// by its source like the others.
enum CanonicalEvent {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        if let null = JSONFields.firstNull(in: .object(request.body.object), at: "", known: JSONFields.eventFields) { throw .invalid(null, "must not be null (leave it out instead)") }
        // The path names the app (the key was checked against it); a body's own is replaced.
        // Without occurredAt, it occurred now (to the millisecond, as a timestamp says it).
        let postedAt = Date(timeIntervalSince1970: (request.now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        do {
            var event = try HeraldJSON.decode(NotificationEvent.self, from: request.raw, userInfo: [NotificationEvent.postedApp: request.app, NotificationEvent.postedAt: postedAt])
            guard request.sources.contains(event.source) else {
                throw GatewayError.invalid("source", "must be one of \(request.sources.map(\.rawValue).joined(separator: ", ")), not \"\(event.source)\"")
            }
            guard TextLimits.isEventId(event.id) else { throw GatewayError.invalid("id", TextLimits.eventIdRule) }
            event.id = SourceEventIds.eventId(event.source, event.id)
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
