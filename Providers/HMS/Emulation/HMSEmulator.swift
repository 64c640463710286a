import Foundation
import HeraldCrypto
import HeraldModel
import ProviderEmulation

/// Huawei Push Kit v1 as the sandbox plays it: the client-credentials token endpoint and
/// `messages:send` with 1 … 1000 tokens, answering with Push Kit's result codes, including
/// `80100000` with the illegal tokens listed when only some tokens are bad. Every request that
/// gets past authentication and validation is recorded with its token list and code
/// (`SandboxState.sendRequests`), so multicast is visible. It accepts the clients a test hands
/// it and a demo client it writes as `hms-client.json` and `hms-client-secret`.
public final class HMSEmulator: ProviderEmulator {
    /// A client the sandbox knows: its id (also the app id it may send for) and secret.
    public struct Client: Sendable, Hashable, Codable {
        public var clientId: String
        public var clientSecret: String

        public init(clientId: String, clientSecret: String) {
            self.clientId = clientId
            self.clientSecret = clientSecret
        }
    }

    public let provider = "hms"
    /// The demo client's id, which doubles as its app id.
    public static let demoClientId = "100000001"
    public let routes = [SandboxRoute("POST", "/oauth2/v3/token"), SandboxRoute("POST", "/v1/:appId/messages:send")]
    let state: SandboxState
    let clients: [String: Client]
    let metrics: SandboxMetrics
    let tokenLifetime: TimeInterval
    /// The demo client, when the sandbox makes demo credentials.
    public let demoClient: Client?

    init(_ context: EmulatorContext) {
        state = context.state
        metrics = context.metrics
        tokenLifetime = context.tokenLifetime
        var clients = context.credentials.compactMap { $0 as? Client }
        if context.demoCredentials {
            let client = Client(clientId: Self.demoClientId, clientSecret: Base64URL.encode(Data((0..<24).map { _ in UInt8.random(in: 0...255) })))
            clients.append(client)
            demoClient = client
        } else {
            demoClient = nil
        }
        self.clients = Dictionary(clients.map { ($0.clientId, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func handle(_ request: SandboxRequest, route: SandboxRoute, parameters: [String: String]) -> SandboxReply {
        if let appId = parameters["appId"] { return send(request, appId: appId) }
        return token(request)
    }

    public func demoFiles() -> [String: Data] {
        guard let client = demoClient else { return [:] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return [
            "hms-client-secret": Data(client.clientSecret.utf8),
            "hms-client.json": (try? encoder.encode(["appId": client.clientId, "clientId": client.clientId])) ?? Data(),
        ]
    }

    public func demoCredentials() -> [String: Any] {
        guard let client = demoClient else { return [:] }
        return ["hmsClient": ["appId": client.clientId, "clientId": client.clientId, "clientSecret": client.clientSecret]]
    }

    static let maxTokens = 1000
    static let maxBodyBytes = 4096

    // MARK: OAuth

    /// `POST /oauth2/v3/token`: `grant_type=client_credentials&client_id=…&client_secret=…`.
    private func token(_ request: SandboxRequest) -> SandboxReply {
        let form = SandboxHTTP.form(request.body)
        func refuse(_ subError: Int, _ description: String) -> SandboxReply {
            metrics.count(provider: "hms", endpoint: "token", outcome: "refused")
            return SandboxHTTP.json(400, ["error": 1101, "sub_error": subError, "error_description": description])
        }
        guard form["grant_type"] == "client_credentials" else { return refuse(20001, "grant_type must be client_credentials") }
        guard let id = form["client_id"], let client = clients[id] else { return refuse(20181, "invalid client_id") }
        guard form["client_secret"] == client.clientSecret else { return refuse(20186, "invalid client_secret") }
        let token = state.issueToken(provider: "hms", subject: id, lifetime: tokenLifetime)
        metrics.count(provider: "hms", endpoint: "token", outcome: "issued")
        return SandboxHTTP.json(200, ["access_token": token, "expires_in": Int(tokenLifetime), "token_type": "Bearer"])
    }

    // MARK: Send

    /// `POST /v1/{appId}/messages:send`.
    private func send(_ request: SandboxRequest, appId: String) -> SandboxReply {
        guard let bearer = request.bearer else {
            return answer(401, "80200001", "Oauth authentication error", outcome: "unauthenticated")
        }
        switch state.checkToken(bearer, provider: "hms") {
        case .unknown: return answer(401, "80200001", "Oauth authentication error", outcome: "unauthenticated")
        case .expired: return answer(401, "80200003", "Oauth token expired", outcome: "token_expired")
        case .valid(let clientId) where clientId != appId:
            return answer(403, "80300002", "The current app does not have the permission to send messages", outcome: "forbidden")
        case .valid: break
        }

        let body = request.body
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
              let message = root["message"] as? [String: Any] else {
            return answer(400, "80100003", "Incorrect message structure: the body must be an object with a \"message\" object", outcome: "bad_structure")
        }
        let validateOnly = (root["validate_only"] as? Bool) ?? false
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count == 1 else {
            return answer(400, "80100001", "Some request parameters are incorrect: exactly one of token, topic, condition is required", outcome: "bad_parameter")
        }
        var tokens: [String] = []
        if let value = message["token"] {
            guard let list = value as? [Any], list.allSatisfy({ $0 is String }), let strings = list as? [String] else {
                return answer(400, "80100001", "Some request parameters are incorrect: token must be an array of strings", outcome: "bad_parameter")
            }
            guard !strings.isEmpty, strings.allSatisfy({ !$0.isEmpty }) else {
                return answer(400, "80100001", "Some request parameters are incorrect: token must list 1 to 1000 non-empty tokens", outcome: "bad_parameter")
            }
            guard strings.count <= Self.maxTokens else {
                return answer(400, "80300010", "The number of tokens in the message body exceeds the default value (1000)", outcome: "too_many_tokens")
            }
            tokens = strings
        }
        if let problem = Self.problem(in: message) {
            return answer(400, "80100001", "Some request parameters are incorrect: \(problem)", outcome: "bad_parameter")
        }
        var withoutTokens = message
        withoutTokens.removeValue(forKey: "token")
        let size = (try? JSONSerialization.data(withJSONObject: withoutTokens))?.count ?? 0
        guard size <= Self.maxBodyBytes else {
            return answer(400, "80300008", "The message body size exceeds the default value (4096 bytes): \(size) bytes", outcome: "too_big")
        }

        let rules = tokens.map { TokenRule(token: $0) }
        for token in tokens { state.countAttempt(provider: "hms", token: token) }
        let requestId = String(state.nextSequence())
        let now = Date()
        /// Answers and records the request with its tokens and code.
        func answered(_ status: Int, _ code: String, _ text: String, outcome: String, retryAfter: Int? = nil) -> SandboxReply {
            state.record(SandboxState.SendRequest(requestId: requestId, provider: "hms", app: appId, tokens: tokens, code: code, receivedAt: now))
            return answer(status, code, text, outcome: outcome, retryAfter: retryAfter, requestId: requestId)
        }
        let delay = state.currentFaults.latencyMilliseconds + (rules.map(\.delayMilliseconds).max() ?? 0)
        if let limit = rules.compactMap({ rule -> Int? in if case .tooMany(let limit) = rule.failure { limit } else { nil } }).min(), tokens.count > limit {
            return answered(400, "80300010", "The number of tokens in the message body exceeds the default value (\(limit))", outcome: "too_many_tokens").delayed(by: delay)
        }
        if let retryAfter = state.injectedThrottle() {
            return answered(429, "81000001", "System internal error: flow control", outcome: "throttled", retryAfter: retryAfter).delayed(by: delay)
        }
        if state.injectedUnavailability() {
            return answered(503, "81000001", "System internal error: flow control", outcome: "unavailable", retryAfter: 1).delayed(by: delay)
        }
        // Request-wide failures: any token asking for one makes the whole request fail.
        for (token, rule) in zip(tokens, rules) {
            guard let failure = rule.failure else { continue }
            switch failure {
            case .unavailable, .quota:
                if state.failureApplies(rule, provider: "hms", token: token) {
                    return answered(503, "81000001", "System internal error: flow control", outcome: "unavailable", retryAfter: rule.retryAfterSeconds).delayed(by: delay)
                }
            case .internal, .unspecified:
                if state.failureApplies(rule, provider: "hms", token: token) {
                    return answered(500, "81000001", "System internal error", outcome: "internal").delayed(by: delay)
                }
            case .authServiceFailed:
                if state.failureApplies(rule, provider: "hms", token: token) {
                    return answered(500, "80600003", "Request OAuth service failed", outcome: "oauth_service_failed").delayed(by: delay)
                }
            case .ttlExpired:
                return answered(400, "80100004", "The message expiration time is earlier than the current time", outcome: "ttl_expired").delayed(by: delay)
            default:
                continue
            }
        }
        let illegal = zip(tokens, rules).filter { _, rule in
            switch rule.failure {
            case .unregistered, .invalid, .senderMismatch: true
            default: false
            }
        }.map(\.0)
        if !tokens.isEmpty, illegal.count == tokens.count {
            return answered(400, "80300007", "All the tokens are invalid", outcome: "all_tokens_invalid").delayed(by: delay)
        }
        let illegalSet = Set(illegal)
        let accepted = tokens.filter { !illegalSet.contains($0) }
        if !validateOnly {
            let recipients = tokens.isEmpty ? [(message["topic"] as? String).map { "/topics/\($0)" } ?? (message["condition"] as? String ?? "")] : accepted
            for recipient in recipients {
                state.accept(.init(id: UUID().uuidString, provider: "hms", app: appId, token: recipient, receivedAt: now, requestBody: body, requestId: requestId))
            }
        }
        if !illegal.isEmpty {
            let detail = ["success": accepted.count, "failure": illegal.count, "illegal_tokens": illegal] as [String: Any]
            let text = String(decoding: (try? JSONSerialization.data(withJSONObject: detail, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
            return answered(200, "80100000", text, outcome: "partly_delivered").delayed(by: delay)
        }
        return answered(200, "80000000", "Success", outcome: validateOnly ? "validated" : "delivered").delayed(by: delay)
    }

    /// What is wrong with the message's fields, if anything.
    static func problem(in message: [String: Any]) -> String? {
        if let data = message["data"], !(data is String) { return "data must be a string (usually JSON text)" }
        if let notification = message["notification"], !(notification is [String: Any]) { return "notification must be an object" }
        guard let androidValue = message["android"] else { return nil }
        guard let android = androidValue as? [String: Any] else { return "android must be an object" }
        if let key = android["collapse_key"] {
            guard let number = SandboxHTTP.number(key), number == number.rounded(), (-1...100).contains(number) else { return "android.collapse_key must be an integer from -1 to 100" }
        }
        if let urgency = android["urgency"] {
            guard let text = urgency as? String, ["HIGH", "NORMAL"].contains(text) else { return "android.urgency must be HIGH or NORMAL" }
        }
        if let ttl = android["ttl"] {
            guard let text = ttl as? String, text.range(of: #"^\d+(\.\d{1,9})?[sS]?$"#, options: .regularExpression) != nil else {
                return "android.ttl must be a number of seconds such as \"86400s\""
            }
        }
        if let tag = android["bi_tag"], !(tag is String) { return "android.bi_tag must be a string" }
        if let data = android["data"], !(data is String) { return "android.data must be a string" }
        return nil
    }

    private func answer(_ status: Int, _ code: String, _ message: String, outcome: String, retryAfter: Int? = nil, requestId: String? = nil) -> SandboxReply {
        metrics.count(provider: "hms", endpoint: "send", outcome: outcome)
        return SandboxHTTP.json(
            status, ["code": code, "msg": message, "requestId": requestId ?? String(state.nextSequence())],
            headers: retryAfter.map(SandboxHTTP.retryAfter) ?? [], contentType: "application/json;charset=utf-8")
    }
}
