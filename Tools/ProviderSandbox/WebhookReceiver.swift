import Foundation
import HeraldModel
import Synchronization

/// A tenant's webhook endpoint, for development, demos and tests: `POST /webhooks/{name}`
/// records each forward it receives (its Standard Webhooks headers and body, and the status
/// it answered) and answers as the name's rules ask, so every answer a dispatcher must handle
/// can be provoked. Rules are prefixes of the name, combinable like token rules:
///
/// | prefix | effect |
/// |---|---|
/// | `fail-NNN-N-` | the first N forwards are answered with status NNN (no N: all of them) |
/// | `after-S-` | `Retry-After: S` on a 429 or 5xx answer |
/// | `redirect-` | 307 with a `Location` (a client must not follow it) |
/// | `slow-MS-` | answer after MS milliseconds |
///
/// It does not check signatures: what a tenant does with them is for the tests to verify
/// with an independent implementation.
public final class WebhookReceiver: Sendable {
    /// One forward as received.
    public struct Receipt: Sendable {
        public var name: String
        public var webhookId: String?
        public var timestamp: String?
        public var signature: String?
        public var contentType: String?
        public var body: Data
        /// The status the receiver answered with.
        public var status: Int
        public var receivedAt: Date
        /// The forward's `data.eventId` (Herald's event id), read once as it arrives, so a
        /// benchmark's receipts of hundreds of thousands need not parse every body; nil
        /// when the body is not such a JSON object.
        public var eventId: String?

        static func eventId(in body: Data) -> String? {
            guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
            return (root["data"] as? [String: Any])?["eventId"] as? String
        }
    }

    private let capacity: Int
    private let receipts = Mutex<[Receipt]>([])
    private let counts = Mutex<[String: Int]>([:])

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Answers a forward to `name`.
    func receive(_ request: SandboxRequest, name: String) -> SandboxReply {
        let rule = Rule(name: name)
        let attempt = counts.withLock { table -> Int in
            table[name, default: 0] += 1
            return table[name]!
        }
        var reply = SandboxReply(status: 204)
        if rule.redirect {
            reply = SandboxReply(status: 307, headers: [("location", "http://169.254.169.254/latest/meta-data/")])
        } else if let status = rule.failure, rule.times.map({ attempt <= $0 }) ?? true {
            var headers: [(name: String, value: String)] = [("content-type", "text/plain")]
            if status == 429 || status >= 500 { headers.append(("retry-after", String(rule.retryAfterSeconds))) }
            reply = SandboxReply(status: status, headers: headers, body: Data("answered \(status) by rule".utf8))
        }
        let receipt = Receipt(
            name: name, webhookId: request.headers["webhook-id"], timestamp: request.headers["webhook-timestamp"],
            signature: request.headers["webhook-signature"], contentType: request.headers["content-type"], body: request.body,
            status: reply.status, receivedAt: Date(), eventId: Receipt.eventId(in: request.body))
        receipts.withLock { list in
            if list.count >= capacity { list.removeFirst(list.count / 2) }
            list.append(receipt)
        }
        return reply.delayed(by: rule.delayMilliseconds)
    }

    /// The forwards received (for `name`, if given), oldest first.
    public func received(name: String? = nil) -> [Receipt] {
        receipts.withLock { list in name.map { name in list.filter { $0.name == name } } ?? list }
    }

    /// How many forwards arrived, answered however.
    public var count: Int { counts.withLock { $0.values.reduce(0, +) } }

    public func clear() {
        receipts.withLock { $0.removeAll() }
        counts.withLock { $0.removeAll() }
    }

    /// What a receiver's name asks for.
    struct Rule {
        var failure: Int?
        var times: Int?
        var retryAfterSeconds = 1
        var redirect = false
        var delayMilliseconds = 0

        init(name: String) {
            var parts = name.split(separator: "-", omittingEmptySubsequences: false)[...]
            func number() -> Int? {
                guard let first = parts.first, let value = Int(first), parts.count > 1 else { return nil }
                parts = parts.dropFirst()
                return value
            }
            while let word = parts.first, parts.count > 1 {
                parts = parts.dropFirst()
                switch word {
                case "fail":
                    guard let status = number(), (100...599).contains(status) else { return }
                    failure = status
                    times = number()
                case "after": retryAfterSeconds = number() ?? retryAfterSeconds
                case "slow": delayMilliseconds = number() ?? 0
                case "redirect": redirect = true
                default: return
                }
            }
        }
    }
}
