import Crypto
import Foundation
import HeraldCrypto
import HeraldModel
import ProviderEmulation
import Synchronization

/// A push service (RFC 8030) as the sandbox plays it. It makes subscriptions as a browser's
/// `pushManager.subscribe()` would (`POST /webpush/subscriptions`: an endpoint on the sandbox
/// and the keys, the private half kept here) and takes pushes at that endpoint
/// (`POST /webpush/push/{id}`) as a push service does: the VAPID token checked (RFC 8292:
/// ES256 by the key `k` names, `aud` the endpoint's origin, `exp` within 24 hours, a `sub`),
/// `TTL` required, `Content-Encoding: aes128gcm`, `Urgency` and `Topic` checked, at most 4,096
/// bytes, an `aes128gcm` header with the sender's key; the inbox shows the body decrypted with
/// the subscription's keys (RFC 8291) when it is read, as the browser would. A subscription made with a `rule` carries the token
/// rule in its id (`unregistered-` answers 410 Gone, `quota-1-after-1-` one 429 with
/// `Retry-After: 1`, …). The demo VAPID key is written as `webpush-vapid.pem`.
public final class WebPushEmulator: ProviderEmulator {
    public let provider = "webpush"
    public let routes = [SandboxRoute("POST", "/webpush/subscriptions"), SandboxRoute("POST", "/webpush/push/:subscription")]
    /// The demo app's VAPID key, when the sandbox makes demo credentials.
    public let demoKey: P256.Signing.PrivateKey?
    /// What a push service must take (RFC 8030 §7.2).
    static let payloadLimit = 4096
    /// RFC 8292 §2: a token's `exp` is at most 24 hours ahead (a minute of clock skew allowed).
    static let maximumExpiry: TimeInterval = 24 * 3600 + 60

    private let state: SandboxState
    private let metrics: SandboxMetrics
    private let subscriptions = Mutex<[String: WebPushPrivateKey]>([:])
    /// Authorization headers whose token verified, with its `sub` and `exp`: a sender reuses a
    /// token for hours, so each is verified once (until it expires), as a push service may.
    private let verified = Mutex<[String: (subject: String, audience: String, expires: Double)]>([:])
    /// The origin endpoints name: the first of the certificate's extra names (compose's
    /// `herald-sandbox`) or localhost, and the HTTPS port bound.
    private let origin: Mutex<String>
    private let host: String

    init(_ context: EmulatorContext) {
        state = context.state
        metrics = context.metrics
        host = context.hostnames.first ?? "localhost"
        origin = Mutex("https://\(host):\(context.httpsPort ?? 8443)")
        demoKey = context.demoCredentials ? P256.Signing.PrivateKey() : nil
    }

    public func handle(_ request: SandboxRequest, route: SandboxRoute, parameters: [String: String]) -> SandboxReply {
        if let id = parameters["subscription"] { return push(request, id: id) }
        return subscribe(request)
    }

    public func listening(scheme: String, port: Int, hosts: [String]) {
        if scheme == "https" { origin.withLock { $0 = "https://\(host):\(port)" } }
    }

    public func demoFiles() -> [String: Data] {
        guard let demoKey else { return [:] }
        return ["webpush-vapid.pem": Data(demoKey.pemRepresentation.utf8)]
    }

    public func demoCredentials() -> [String: Any] {
        guard let demoKey else { return [:] }
        return ["webpushVAPIDKey": ["privateKeyPEM": demoKey.pemRepresentation, "publicKey": Base64URL.encode(demoKey.publicKey.x963Representation)]]
    }

    // MARK: Subscriptions

    /// `POST /webpush/subscriptions`, optionally `{"rule": "unregistered-"}`: a new subscription,
    /// as `PushSubscription.toJSON()` gives it (201).
    private func subscribe(_ request: SandboxRequest) -> SandboxReply {
        var rule = request.query["rule"] ?? ""
        if !request.body.isEmpty {
            guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
                return problem(400, "the body must be empty or a JSON object like {\"rule\": \"unregistered-\"}")
            }
            rule = object["rule"] as? String ?? rule
        }
        guard rule.utf8.allSatisfy({ Self.isBase64URL($0) }) else {
            return problem(400, "a rule is letters, digits and '-', e.g. quota-1-after-1-")
        }
        let key = WebPushPrivateKey.generate()
        let id = rule + Hex.encode(Array((0..<16).map { _ in UInt8.random(in: 0...255) }))
        subscriptions.withLock { table in
            if table.count >= 100_000 { table.removeAll() }
            table[id] = key
        }
        metrics.count(provider: provider, endpoint: "subscribe", outcome: "created")
        return SandboxHTTP.json(201, [
            "endpoint": endpoint(id), "expirationTime": NSNull(),
            "keys": ["p256dh": Base64URL.encode(key.publicKey.publicKeyBytes), "auth": Base64URL.encode(key.authSecret)],
        ])
    }

    private func endpoint(_ id: String) -> String {
        origin.withLock { $0 } + "/webpush/push/" + id
    }

    // MARK: Push

    /// `POST /webpush/push/{id}`: RFC 8030 §5.
    private func push(_ request: SandboxRequest, id: String) -> SandboxReply {
        guard let key = subscriptions.withLock({ $0[id] }) else {
            return refuse(404, "no subscription \(id)", outcome: "not_found")
        }
        let endpoint = endpoint(id)
        let sender: String
        switch vapid(request, audience: origin.withLock { $0 }) {
        case .success(let subject): sender = subject
        case .failure(let refusal): return refuse(401, refusal.reason, outcome: "unauthorized", headers: [("www-authenticate", "vapid")])
        }
        let headers = request.headers
        guard let ttl = headers["ttl"], let seconds = Int(ttl), seconds >= 0 else {
            return refuse(400, "the TTL header is required: a number of seconds (RFC 8030 §5.2)", outcome: "bad_ttl")
        }
        guard headers["content-encoding"]?.lowercased() == "aes128gcm" else {
            return refuse(415, "Content-Encoding must be aes128gcm (RFC 8291), got \(headers["content-encoding"] ?? "none")", outcome: "bad_encoding")
        }
        if let urgency = headers["urgency"], !["very-low", "low", "normal", "high"].contains(urgency) {
            return refuse(400, "Urgency must be very-low, low, normal or high (RFC 8030 §5.3), got \(urgency)", outcome: "bad_urgency")
        }
        if let topic = headers["topic"], topic.isEmpty || topic.utf8.count > 32 || !topic.utf8.allSatisfy(Self.isBase64URL) {
            return refuse(400, "a Topic is 1 to 32 characters of the base64url alphabet (RFC 8030 §5.4), got \(topic)", outcome: "bad_topic")
        }
        guard request.body.count <= Self.payloadLimit else {
            return refuse(413, "the payload is \(request.body.count) bytes, over the \(Self.payloadLimit) a push service must take", outcome: "too_large")
        }

        state.countAttempt(provider: provider, token: endpoint)
        let rule = TokenRule(token: id)
        let faults = state.currentFaults
        let delay = faults.latencyMilliseconds + rule.delayMilliseconds
        if let retryAfter = state.injectedThrottle() {
            return refuse(429, "too many requests", outcome: "throttled", headers: SandboxHTTP.retryAfter(retryAfter)).delayed(by: delay)
        }
        if state.injectedUnavailability() {
            return refuse(503, "the push service is unavailable", outcome: "unavailable", headers: SandboxHTTP.retryAfter(1)).delayed(by: delay)
        }
        if let failure = rule.failure, state.failureApplies(rule, provider: provider, token: endpoint) {
            return answer(failure, retryAfter: rule.retryAfterSeconds).delayed(by: delay)
        }

        // A push service cannot read the body, only its aes128gcm header (RFC 8188 §2.1: salt,
        // record size, and for Web Push the sender's 65-byte key); the inbox decrypts it when read.
        guard request.body.count >= 86 + 17, request.body[request.body.startIndex + 20] == 65 else {
            return refuse(400, "the body is not an aes128gcm record with the sender's key (RFC 8291 §4)", outcome: "not_aes128gcm")
        }
        let messageId = Hex.encode(Array((0..<12).map { _ in UInt8.random(in: 0...255) }))
        var kept = ["ttl": ttl]
        kept["urgency"] = headers["urgency"]
        kept["topic"] = headers["topic"]
        state.accept(.init(
            id: messageId, provider: provider, app: sender, token: endpoint, receivedAt: Date(), requestBody: request.body,
            headers: kept, open: { try? key.decrypt($0) }))
        metrics.count(provider: provider, endpoint: "push", outcome: "delivered")
        return SandboxReply(status: 201, headers: [("location", origin.withLock { $0 } + "/webpush/message/" + messageId), ("ttl", ttl)]).delayed(by: delay)
    }

    private func answer(_ failure: TokenRule.Failure, retryAfter: Int) -> SandboxReply {
        switch failure {
        case .unregistered, .ttlExpired:
            refuse(410, "the subscription has expired or was unsubscribed", outcome: "gone")
        case .invalid, .senderMismatch:
            refuse(404, "no such subscription", outcome: "not_found")
        case .thirdPartyAuth:
            refuse(403, "the VAPID key is not the one the subscription was made for", outcome: "forbidden")
        case .quota:
            refuse(429, "too many requests", outcome: "throttled", headers: SandboxHTTP.retryAfter(retryAfter))
        case .unavailable:
            refuse(503, "the push service is unavailable", outcome: "unavailable", headers: SandboxHTTP.retryAfter(retryAfter))
        case .internal, .authServiceFailed, .unspecified, .tooMany:
            refuse(500, "internal error", outcome: "internal")
        }
    }

    // MARK: VAPID

    struct Refusal: Error {
        var reason: String
    }

    /// RFC 8292 §3: `Authorization: vapid t=<jwt>, k=<key>`; also the draft's
    /// `WebPush <jwt>` with `Crypto-Key: p256ecdsa=<key>`. The token's `sub` when it holds.
    func vapid(_ request: SandboxRequest, audience: String, now: Date = Date()) -> Result<String, Refusal> {
        guard let authorization = request.headers["authorization"] else { return .failure(Refusal(reason: "no VAPID Authorization header (RFC 8292)")) }
        let cacheKey = authorization + "|" + (request.headers["crypto-key"] ?? "")
        if let known = verified.withLock({ $0[cacheKey] }), known.audience == audience, known.expires > now.timeIntervalSince1970 {
            return .success(known.subject)
        }
        switch verify(authorization, cryptoKey: request.headers["crypto-key"], audience: audience, now: now) {
        case .success(let token):
            verified.withLock { table in
                if table.count >= 10_000 { table.removeAll() }
                table[cacheKey] = (token.subject, audience, token.expires)
            }
            return .success(token.subject)
        case .failure(let refusal):
            return .failure(refusal)
        }
    }

    /// The token's `sub` and `exp` when it holds.
    private func verify(_ authorization: String, cryptoKey: String?, audience: String, now: Date) -> Result<(subject: String, expires: Double), Refusal> {
        var token: String?
        var key: String?
        if authorization.lowercased().hasPrefix("vapid ") {
            for parameter in authorization.dropFirst(6).split(separator: ",") {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                if pair[0] == "t" { token = pair[1] }
                if pair[0] == "k" { key = pair[1] }
            }
        } else if authorization.lowercased().hasPrefix("webpush ") {
            token = String(authorization.dropFirst(8)).trimmingCharacters(in: .whitespaces)
            for part in (cryptoKey ?? "").split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == "p256ecdsa" { key = pair[1] }
            }
        }
        guard let token, let key else { return .failure(Refusal(reason: "the Authorization header must be vapid t=<token>, k=<key>")) }
        guard let keyBytes = Base64URL.decode(key), let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes) else {
            return .failure(Refusal(reason: "k is not a P-256 public key (the 65-byte uncompressed point, base64url)"))
        }
        guard let jwt = CompactJWT(token) else { return .failure(Refusal(reason: "t is not a JWT")) }
        guard jwt.header["alg"] as? String == "ES256" else { return .failure(Refusal(reason: "the token's alg must be ES256")) }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
              publicKey.isValidSignature(signature, for: jwt.signingInput) else {
            return .failure(Refusal(reason: "the token's signature does not verify with k"))
        }
        guard jwt.claims["aud"] as? String == audience else {
            return .failure(Refusal(reason: "the token's aud must be the push resource's origin \(audience), got \(jwt.claims["aud"] ?? "none")"))
        }
        guard let exp = SandboxHTTP.number(jwt.claims["exp"] ?? ""), exp > now.timeIntervalSince1970 else {
            return .failure(Refusal(reason: "the token has no exp or has expired"))
        }
        guard exp <= now.timeIntervalSince1970 + Self.maximumExpiry else {
            return .failure(Refusal(reason: "the token's exp is more than 24 hours ahead (RFC 8292 §2)"))
        }
        guard let subject = jwt.claims["sub"] as? String, subject.hasPrefix("mailto:") || subject.hasPrefix("https:") else {
            return .failure(Refusal(reason: "the token's sub must be a mailto: or https: URI"))
        }
        return .success((subject, exp))
    }

    // MARK: Answers

    private func refuse(_ status: Int, _ message: String, outcome: String, headers: [(name: String, value: String)] = []) -> SandboxReply {
        metrics.count(provider: provider, endpoint: "push", outcome: outcome)
        return SandboxHTTP.json(status, ["code": status, "error": outcome, "message": message], headers: headers)
    }

    private func problem(_ status: Int, _ detail: String) -> SandboxReply {
        SandboxHTTP.json(status, ["type": "about:blank", "title": "Bad Request", "status": status, "detail": detail], contentType: "application/problem+json")
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
    }
}
