import Foundation
import HeraldModel

/// A sample event of one integration, as that integration's upstream system posts it to the
/// gateway (`heraldctl send`): for trying a deployment end to end.
public enum SampleEvent: String, Sendable, CaseIterable {
    case smartid
    case sponsor
    case email
    case datasync
    case chat
    /// The canonical `herald.event.v1`, to the user's devices.
    case event

    /// Whom the sample is for; each integration reads the target it needs.
    public struct Target: Sendable {
        /// Smart ID: the push id a device registered (`pushIds`).
        public var pushId: String?
        /// Chat and data sync: the recipients' user ids; email: the address owner.
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
    }

    /// The gateway path under `/v1/apps/{app}`.
    public var path: String {
        switch self {
        case .smartid: "/smartid/push"
        case .sponsor: "/evernym/notify"
        case .email: "/email/messages"
        case .datasync: "/webcom/events"
        case .chat: "/upstra/events"
        case .event: "/events"
        }
    }

    /// The option that names this integration's target.
    public var targetOption: String {
        switch self {
        case .smartid: "--push-id"
        case .sponsor: "--sponsee"
        case .email: "--address (and --user, the owner)"
        case .datasync, .chat, .event: "--user"
        }
    }

    /// The request body, with a fresh id where the integration carries one.
    public func body(for target: Target, id: String = UUID().uuidString.lowercased(), now: Date = Date()) throws(ControlError) -> Data {
        func need(_ value: String?, _ option: String) throws(ControlError) -> String {
            guard let value, !value.isEmpty else {
                throw ControlError(.invalidInput, "send \(rawValue) needs \(option)")
            }
            return value
        }
        let object: [String: Any]
        switch self {
        case .smartid:
            object = ["messageId": id, "pushId": try need(target.pushId, "--push-id"), "requestor": "heraldctl", "type": "AUTH", "timeToLive": 120]
        case .sponsor:
            object = ["msgId": id, "msgType": "credOffer", "sponseeDetails": try need(target.sponsee, "--sponsee"),
                      "relationshipDid": "did:sov:heraldctl", "metaData": ["msgType": "credOffer", "msgSenderName": "heraldctl"]]
        case .email:
            object = ["emailAddressId": try need(target.address, "--address"), "sudoId": "heraldctl", "owner": try need(target.user, "--user"),
                      "messageId": id, "from": "heraldctl@example.com", "subject": "A test message from heraldctl",
                      "receivedAt": HeraldJSON.formatTimestamp(now)]
        case .datasync:
            object = ["path": "/heraldctl/sample", "event": "value.changed", "value": "sample \(id)", "recipients": [try need(target.user, "--user")]]
        case .chat:
            let user = try need(target.user, "--user")
            object = ["event": "message.created", "channel": ["id": "heraldctl", "displayName": "heraldctl"],
                      "actor": ["id": "heraldctl", "displayName": "heraldctl"], "message": ["type": "text", "text": "A test message from heraldctl"],
                      "recipients": [user]]
        case .event:
            object = ["id": id, "source": "api", "kind": "test.push", "audience": ["users": [try need(target.user, "--user")]],
                      "data": ["message": "A test push from heraldctl"]]
        }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw ControlError(.invalidInput, "cannot write the sample: \(error)")
        }
    }

    /// Headers of the request: the integrations without an id of their own get an
    /// `Idempotency-Key`, so a retried `send` is the same event.
    public func headers(id: String) -> [(name: String, value: String)] {
        switch self {
        case .datasync, .chat: [("Idempotency-Key", id)]
        default: []
        }
    }
}
