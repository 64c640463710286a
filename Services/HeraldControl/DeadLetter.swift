import Foundation
import HeraldModel
import JSONKit
import Messaging

/// A message in the `dead-letters` queue, read: why it was dead-lettered and where it came from.
/// Herald's stages say so in `x-herald-*` headers; the broker, when it dead-letters a message
/// itself (expired, over the delivery limit, rejected), in `x-death` and `x-first-death-*`.
public struct DeadLetter: Sendable {
    /// Its position in the queue, from 1.
    public let position: Int
    public let message: FetchedMessage

    public init(position: Int, message: FetchedMessage) {
        self.position = position
        self.message = message
    }

    private var headers: [String: HeaderValue] { message.properties.headers }

    /// The message id (a contract's own id), or `#<position>` when it has none.
    public var id: String { message.properties.messageId ?? "#\(position)" }

    /// The contract it carries (`type`), when it says.
    public var contract: String? { message.properties.type }

    /// Why it was dead-lettered, in words.
    public var reason: String {
        if let reason = headers["x-herald-reason"]?.stringValue { return reason }
        if let reason = headers["x-first-death-reason"]?.stringValue {
            let queue = headers["x-first-death-queue"]?.stringValue.map { " in \($0)" } ?? ""
            switch reason {
            case "expired": return "expired\(queue) (its TTL ran out before a consumer took it)"
            case "delivery_limit": return "delivery limit reached\(queue) (delivered too many times without an acknowledgement)"
            case "rejected": return "rejected\(queue) by a consumer"
            case "maxlen": return "dropped\(queue): the queue was full"
            default: return "\(reason)\(queue)"
            }
        }
        return "unknown (no reason header)"
    }

    /// The queue it was dead-lettered from.
    public var queue: String? {
        headers["x-herald-queue"]?.stringValue ?? headers["x-first-death-queue"]?.stringValue
    }

    /// When it was dead-lettered, when the headers say.
    public var deadLetteredAt: String? {
        if let at = headers["x-herald-dead-lettered-at"]?.stringValue { return at }
        if case .timestamp(let date)? = message.deaths.first?["time"] { return HeraldJSON.formatTimestamp(date) }
        return nil
    }

    /// Where a replay sends it: the exchange and routing key it was first published with.
    public var origin: (exchange: String, routingKey: String) {
        let exchange = headers["x-herald-exchange"]?.stringValue ?? headers["x-first-death-exchange"]?.stringValue ?? message.exchange
        var routingKey = headers["x-herald-routing-key"]?.stringValue ?? message.routingKey
        if headers["x-herald-routing-key"] == nil, let first = message.deaths.last?["routing-keys"]?.arrayValue?.first?.stringValue {
            routingKey = first
        }
        return (exchange, routingKey)
    }

    /// The app whose message it is: the body's `app` (a contract's, or every element's of a
    /// pack), or nil when the body does not say or names several.
    public var app: String? {
        switch try? JSONValue(json: message.body) {
        case .object(let object)?:
            return object["app"]?.stringValue
        case .array(let pack)? where pack.allSatisfy({ $0.objectValue != nil }):
            let apps = Set(pack.map { $0["app"]?.stringValue })
            guard apps.count == 1, let app = apps.first else { return nil }
            return app
        default:
            return nil
        }
    }

    /// Whether it is one of `ids`: message ids, or `#<position>`.
    public func isNamed(by ids: [String]) -> Bool {
        ids.contains { $0 == id || $0 == "#\(position)" || $0 == message.properties.messageId }
    }

    /// What `heraldctl` and the console show of it in a list: position, id, reason, replays,
    /// origin, and the contract, queue, app and time when known.
    public var summary: [String: Any] {
        var entry: [String: Any] = [
            "position": position, "id": id, "reason": reason, "replays": replays,
            "exchange": origin.exchange, "routingKey": origin.routingKey,
        ]
        if let contract { entry["contract"] = contract }
        if let queue { entry["queue"] = queue }
        if let app { entry["app"] = app }
        if let deadLetteredAt { entry["deadLetteredAt"] = deadLetteredAt }
        return entry
    }

    /// The summary with the headers and the body as text: what `show` prints.
    public var detail: [String: Any] {
        var detail = summary
        detail["headers"] = message.properties.headers.mapValues { "\($0)" }
        detail["body"] = String(decoding: message.body, as: UTF8.self)
        return detail
    }

    /// How many times it was replayed before.
    public var replays: Int { Int(clamping: headers[Self.replaysHeader]?.intValue ?? 0) }

    /// Counts replays, so an operator sees a message that keeps coming back.
    public static let replaysHeader = "x-herald-replays"

    /// The message a replay publishes: the same body and properties, to the original exchange
    /// and routing key, with the replay count raised and the dead-letter history, attempts
    /// and any expiration removed, so it gets a fresh start.
    public func replayed() -> OutgoingMessage {
        var properties = message.properties
        properties.expiration = nil
        properties.headers = properties.headers.filter { key, _ in
            !(key.hasPrefix("x-death") || key.hasPrefix("x-first-death-") || key.hasPrefix("x-last-death-")
              || key == "x-delivery-count" || Self.herald.contains(key))
        }
        properties.headers[Self.replaysHeader] = .int(Int64(replays) + 1)
        let origin = origin
        return OutgoingMessage(exchange: origin.exchange, routingKey: origin.routingKey, body: message.body, properties: properties, mandatory: true)
    }

    /// Herald's own dead-letter and retry headers, dropped on replay.
    private static let herald: Set<String> = [
        "x-herald-reason", "x-herald-stage", "x-herald-queue", "x-herald-dead-lettered-at",
        "x-herald-exchange", "x-herald-routing-key", "x-herald-attempts",
    ]
}
