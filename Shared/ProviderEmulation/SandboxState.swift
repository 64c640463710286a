import DequeModule
import Foundation
import HeraldCrypto
import HeraldModel
import Metrics
import Synchronization

/// Everything the emulated providers remember: issued access tokens, how often each token
/// has failed, the injected faults and the inbox of accepted messages.
public final class SandboxState: Sendable {
    /// One accepted message, as the inbox keeps it.
    public struct InboxEntry: Sendable {
        public var id: String
        /// `fcm`, `hms` or `apns`.
        public var provider: String
        /// The FCM project id, the HMS app id or the APNs topic.
        public var app: String
        public var token: String
        public var receivedAt: Date
        /// The request body as received; kept raw so accepting costs no re-encoding.
        public var requestBody: Data
        /// For HMS: the `requestId` of the `messages:send` answer, shared by every token of a
        /// multicast request (see `sendRequests`).
        public var requestId: String? = nil
        /// For APNs: the request's `apns-*` headers (the rest of the push is its body).
        public var headers: [String: String]? = nil
        /// How the device opens the request body when what it gets is not the body itself (Web
        /// Push: decrypting it with the subscription's keys). Run when the inbox is read, not
        /// when a push arrives: a push service never opens what it carries, and the sandbox's
        /// own cost per push should stay a push service's.
        public var open: (@Sendable (Data) -> Data?)? = nil
        /// What the device gets, opened; nil when it is the body itself or does not open.
        public var delivered: Data? { open?(requestBody) }

        public init(
            id: String, provider: String, app: String, token: String, receivedAt: Date, requestBody: Data,
            requestId: String? = nil, headers: [String: String]? = nil, open: (@Sendable (Data) -> Data?)? = nil
        ) {
            self.id = id
            self.provider = provider
            self.app = app
            self.token = token
            self.receivedAt = receivedAt
            self.requestBody = requestBody
            self.requestId = requestId
            self.headers = headers
            self.open = open
        }

        /// The provider message (for HMS: narrowed to this entry's token; for APNs: the
        /// body, `aps` and the data keys), decoded on demand.
        public var message: [String: Any] {
            if open != nil {
                guard let delivered else { return ["undecryptable": "the body does not open with the device's keys"] }
                return (try? JSONSerialization.jsonObject(with: delivered)) as? [String: Any] ?? [:]
            }
            guard let root = (try? JSONSerialization.jsonObject(with: requestBody)) as? [String: Any] else { return [:] }
            if provider == "apns" { return root }
            guard var message = root["message"] as? [String: Any] else { return [:] }
            if provider == "hms", message["token"] != nil { message["token"] = [token] }
            return message
        }

        /// The `event` entry of the message's data map (Push Kit's data is a JSON string);
        /// nil when the data is encrypted or not Herald's.
        public var eventId: String? {
            if open != nil { return message["event"] as? String ?? (message["data"] as? [String: Any])?["event"] as? String }
            if provider == "apns" { return message["event"] as? String }
            let data = message["data"]
            if let map = data as? [String: Any] { return map["event"] as? String }
            guard let text = data as? String,
                  let map = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
            return map["event"] as? String
        }
    }

    /// One Push Kit `messages:send` request that passed authentication and validation: the
    /// tokens it listed, in order, and the code it was answered with. How a test sees
    /// multicast: N tokens sent as one request are one record.
    public struct SendRequest: Sendable {
        public var requestId: String
        public var provider: String
        public var app: String
        public var tokens: [String]
        public var code: String
        public var receivedAt: Date

        public init(requestId: String, provider: String, app: String, tokens: [String], code: String, receivedAt: Date) {
            self.requestId = requestId
            self.provider = provider
            self.app = app
            self.tokens = tokens
            self.code = code
            self.receivedAt = receivedAt
        }
    }

    /// Faults an operator or a test injects through the admin API.
    public struct Faults: Sendable, Equatable {
        /// While now is in this window, every send answers 503.
        public var outage: ClosedRange<Date>?
        /// The share (0…1) of sends that answer 503 at random.
        public var errorRate: Double = 0
        /// Added to every send.
        public var latencyMilliseconds: Int = 0
        /// While now is in this window, every send answers 429 (over quota) with
        /// `Retry-After: retryAfterSeconds`.
        public var throttle: ClosedRange<Date>?
        /// The `Retry-After` of a throttled send.
        public var retryAfterSeconds: Int = 1

        public init(
            outage: ClosedRange<Date>? = nil, errorRate: Double = 0, latencyMilliseconds: Int = 0,
            throttle: ClosedRange<Date>? = nil, retryAfterSeconds: Int = 1
        ) {
            self.outage = outage
            self.errorRate = errorRate
            self.latencyMilliseconds = latencyMilliseconds
            self.throttle = throttle
            self.retryAfterSeconds = retryAfterSeconds
        }
    }

    struct IssuedToken: Sendable {
        var provider: String
        /// The FCM project id, or the HMS client id.
        var subject: String
        var expiresAt: Date
    }

    private let capacity: Int
    private let inbox: Mutex<Deque<InboxEntry>>
    private let sendLog: Mutex<Deque<SendRequest>>
    private let tokens = Mutex<[String: IssuedToken]>([:])
    private let issued = Mutex<[String: Int]>([:])
    private let failures = Mutex<[String: Int]>([:])
    private let attempts = Mutex<[String: Int]>([:])
    private let faults = Mutex(Faults())
    private let inboxSize: Gauge
    private let sequence = Atomic<UInt64>(UInt64(Date().timeIntervalSince1970) << 20)

    public init(inboxCapacity: Int) {
        capacity = max(1, inboxCapacity)
        inbox = Mutex(Deque())
        sendLog = Mutex(Deque())
        inboxSize = Gauge(label: "herald_sandbox_inbox_messages")
    }

    /// A process-unique number for message and request ids.
    public func nextSequence() -> UInt64 {
        sequence.add(1, ordering: .relaxed).newValue
    }

    // MARK: Access tokens

    public func issueToken(provider: String, subject: String, lifetime: TimeInterval) -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        let token = "ya29.sandbox-" + Base64URL.encode(Data(bytes))
        let now = Date()
        issued.withLock { $0[provider, default: 0] += 1 }
        tokens.withLock { table in
            if table.count > 10_000 { table = table.filter { $0.value.expiresAt > now } }
            table[token] = IssuedToken(provider: provider, subject: subject, expiresAt: now.addingTimeInterval(lifetime))
        }
        return token
    }

    /// Forgets every issued access token, as if the provider had revoked them: the next
    /// send with one gets 401 without an error code, and the client must fetch a new one.
    /// Returns how many were forgotten.
    @discardableResult
    public func revokeAccessTokens() -> Int {
        tokens.withLock { table in
            defer { table.removeAll() }
            return table.count
        }
    }

    /// Marks every issued access token as expired: the next send with one gets Push Kit's
    /// `80200003` (FCM: 401), and the client must fetch a new one. Returns how many.
    @discardableResult
    public func expireAccessTokens() -> Int {
        let past = Date().addingTimeInterval(-1)
        return tokens.withLock { table in
            for key in table.keys { table[key]?.expiresAt = past }
            return table.count
        }
    }

    /// Access tokens issued so far, per provider.
    public func issuedTokenCount(provider: String) -> Int {
        issued.withLock { $0[provider, default: 0] }
    }

    public enum TokenCheck {
        case valid(subject: String)
        case expired
        case unknown
    }

    public func checkToken(_ token: String, provider: String) -> TokenCheck {
        guard let issued = tokens.withLock({ $0[token] }), issued.provider == provider else { return .unknown }
        return issued.expiresAt > Date() ? .valid(subject: issued.subject) : .expired
    }

    // MARK: Token rules

    /// Counts a valid send to `token`, whatever its answer.
    public func countAttempt(provider: String, token: String) {
        attempts.withLock { $0["\(provider)/\(token)", default: 0] += 1 }
    }

    /// How many valid sends to `token` arrived, answered with success or with an error (the
    /// inbox holds only the successful ones): how a test sees that a dead token was not
    /// used again.
    public func sendAttempts(provider: String, token: String) -> Int {
        attempts.withLock { $0["\(provider)/\(token)", default: 0] }
    }

    /// Counts one more send to `token` and says whether its rule's failure applies to it.
    public func failureApplies(_ rule: TokenRule, provider: String, token: String) -> Bool {
        guard rule.failure != nil else { return false }
        guard let times = rule.limitedTimes else { return true }
        let attempt = failures.withLock { table -> Int in
            let key = "\(provider)/\(token)"
            table[key, default: 0] += 1
            return table[key]!
        }
        return attempt <= times
    }

    // MARK: Faults

    public var currentFaults: Faults {
        get { faults.withLock { $0 } }
        set { faults.withLock { $0 = newValue } }
    }

    /// Whether this send falls in an outage or the random error share.
    public func injectedUnavailability(now: Date = Date()) -> Bool {
        let current = currentFaults
        if let outage = current.outage, outage.contains(now) { return true }
        return current.errorRate > 0 && Double.random(in: 0..<1) < current.errorRate
    }

    /// The `Retry-After` seconds of a 429 when this send falls in a throttle window.
    public func injectedThrottle(now: Date = Date()) -> Int? {
        let current = currentFaults
        guard let throttle = current.throttle, throttle.contains(now) else { return nil }
        return current.retryAfterSeconds
    }

    // MARK: Inbox

    public func accept(_ entry: InboxEntry) {
        let count = inbox.withLock { queue -> Int in
            if queue.count >= capacity { queue.removeFirst() }
            queue.append(entry)
            return queue.count
        }
        inboxSize.record(count)
    }

    /// The accepted messages, oldest first, filtered.
    public func messages(provider: String? = nil, app: String? = nil, token: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int? = nil) -> [InboxEntry] {
        let all = inbox.withLock { Array($0) }
        let matching = all.filter { entry in
            (provider == nil || entry.provider == provider) && (app == nil || entry.app == app)
                && (token == nil || entry.token == token) && (since.map { entry.receivedAt >= $0 } ?? true)
                && (until.map { entry.receivedAt <= $0 } ?? true)
        }
        if let limit, matching.count > limit { return Array(matching.suffix(limit)) }
        return matching
    }

    /// Records a Push Kit request (the oldest go first beyond the inbox's capacity).
    public func record(_ request: SendRequest) {
        sendLog.withLock { log in
            if log.count >= capacity { log.removeFirst() }
            log.append(request)
        }
    }

    /// The recorded `messages:send` requests, oldest first, filtered.
    public func sendRequests(provider: String? = nil, app: String? = nil, limit: Int? = nil) -> [SendRequest] {
        let matching = sendLog.withLock { Array($0) }.filter { (provider == nil || $0.provider == provider) && (app == nil || $0.app == app) }
        if let limit, matching.count > limit { return Array(matching.suffix(limit)) }
        return matching
    }

    public func clearMessages() {
        inbox.withLock { $0.removeAll() }
        sendLog.withLock { $0.removeAll() }
        failures.withLock { $0.removeAll() }
        attempts.withLock { $0.removeAll() }
        inboxSize.record(0)
    }
}
