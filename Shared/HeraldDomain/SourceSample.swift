import Foundation
import JSONKit

/// A sample of a source's events, for trying a deployment end to end: `heraldctl send`, the
/// console's test push, the demo's curl and the generated-input tests post it.
public struct SourceSample: Sendable {
    /// The name `heraldctl send` and the console know it by (`smartid`, `chat`).
    public var name: String
    /// Whom it reaches: the target it reads (`heraldctl send`'s option, the console's field).
    public var target: SampleTarget.Field
    /// The route it posts to, below `/v1/apps/{app}`.
    public var path: String
    /// Whether it sends an `Idempotency-Key` (a source without ids of its own), so a retried
    /// send is the same event.
    public var sendsIdempotencyKey: Bool
    /// The body for a target, a fresh id and the time, as a JSON object.
    public var body: @Sendable (SampleTarget, String, Date) throws(SampleTarget.Missing) -> [String: Any]

    public init(
        name: String, target: SampleTarget.Field, path: String, sendsIdempotencyKey: Bool = false,
        body: @escaping @Sendable (SampleTarget, String, Date) throws(SampleTarget.Missing) -> [String: Any]
    ) {
        self.name = name
        self.target = target
        self.path = path
        self.sendsIdempotencyKey = sendsIdempotencyKey
        self.body = body
    }

    /// The body as JSON (sorted keys), for a target, an id and a time.
    public func json(for target: SampleTarget, id: String = UUID().uuidString.lowercased(), now: Date = Date()) throws(SampleTarget.Missing) -> Data {
        let object = try body(target, id, now)
        return (try? JSONValue(any: object))?.json ?? Data("{}".utf8)
    }

    /// The request's headers: an `Idempotency-Key` of `id` for a source without ids.
    public func headers(id: String) -> [(name: String, value: String)] {
        sendsIdempotencyKey ? [("Idempotency-Key", id)] : []
    }
}

/// Whom a sample is for; each source reads the target it needs.
public struct SampleTarget: Sendable {
    /// Smart ID: the push id a device registered (`pushIds`).
    public var pushId: String?
    /// Chat, data sync, CloudEvents and the canonical event: the recipient's user id; email: the address owner.
    public var user: String?
    /// Sponsor: the sponsee id (registered with `PUT /evernym/sponsees/{id}`).
    public var sponsee: String?
    /// Email: the address id whose key was registered (`PUT /email/addresses/{id}/key`).
    public var address: String?

    public init(pushId: String? = nil, user: String? = nil, sponsee: String? = nil, address: String? = nil) {
        self.pushId = pushId
        self.user = user
        self.sponsee = sponsee
        self.address = address
    }

    /// Which target a sample reads.
    public enum Field: String, Sendable, CaseIterable {
        case user, pushId, sponsee, address

        /// `heraldctl send`'s option for it.
        public var option: String {
            switch self {
            case .user: "--user"
            case .pushId: "--push-id"
            case .sponsee: "--sponsee"
            case .address: "--address (and --user, the owner)"
            }
        }
    }

    /// A target the sample needs and was not given: its option (`--push-id`).
    public struct Missing: Error, Sendable, Hashable {
        public var option: String
    }

    /// `value`, or `Missing(option)` when it is absent or empty.
    public func need(_ value: String?, _ option: String) throws(Missing) -> String {
        guard let value, !value.isEmpty else { throw Missing(option: option) }
        return value
    }
}
