import _CryptoExtras
import Foundation
import HeraldDomain
import ProviderEmulation
import ServiceKit
import Synchronization

/// FCM HTTP v1 as the sandbox plays it: the OAuth token endpoint (JWT bearer grant) and
/// `messages:send`, answering as FCM does for success and for every error of its table.
/// It accepts the service accounts of `HERALD_SANDBOX_FCM_ACCOUNTS` (comma-separated key
/// files), those a test hands it, and a demo account it writes as `fcm-service-account.json`.
public final class FCMEmulator: ProviderEmulator {
    public let provider = "fcm"
    public let routes = [SandboxRoute("POST", "/token"), SandboxRoute("POST", "/v1/projects/:project/messages:send")]
    let state: SandboxState
    let verifier: JWTBearerVerifier
    let metrics: SandboxMetrics
    let tokenLifetime: TimeInterval
    private let audiences = TokenAudiences()
    private let demo: Mutex<ServiceAccount?>

    /// The demo service account, when the sandbox makes demo credentials (its `token_uri`
    /// names the HTTPS port the sandbox listens on).
    public var demoAccount: ServiceAccount? { demo.withLock { $0 } }

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// The demo account's RSA key, made once a process: a 2048-bit key takes a good part of a
    /// second of CPU to generate, and a test process starts dozens of sandboxes at once.
    private static let demoKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    init(_ context: EmulatorContext) throws {
        state = context.state
        metrics = context.metrics
        tokenLifetime = context.tokenLifetime
        var accounts = context.credentials.compactMap { $0 as? ServiceAccount }
        accounts += try EnvironmentReader(context.environment).list("HERALD_SANDBOX_FCM_ACCOUNTS").map { path in
            do {
                return try ServiceAccount.load(from: URL(fileURLWithPath: path))
            } catch {
                throw ConfigurationError(.invalidFile, setting: "HERALD_SANDBOX_FCM_ACCOUNTS", "cannot read \(path): \(error)")
            }
        }
        if context.demoCredentials {
            let account = try ServiceAccount.generate(
                projectId: "herald-demo", tokenUri: "https://localhost:\(context.httpsPort ?? 8443)/token", key: Self.demoKey.get())
            demo = Mutex(account)
            accounts.append(account)
        } else {
            demo = Mutex(nil)
        }
        var known: [String: (account: ServiceAccount, key: _RSA.Signing.PublicKey)] = [:]
        for account in accounts { known[account.clientEmail] = (account, try account.publicKey()) }
        let audiences = audiences
        verifier = JWTBearerVerifier(accounts: known, audiences: { audiences.current })
    }

    public func handle(_ request: SandboxRequest, route: SandboxRoute, parameters: [String: String]) -> SandboxReply {
        if let project = parameters["project"] { return send(request, project: project) }
        return token(request)
    }

    /// JWTs whose `aud` names this token endpoint are accepted; the demo account's
    /// `token_uri` names the HTTPS port actually bound.
    public func listening(scheme: String, port: Int, hosts: [String]) {
        audiences.insert(hosts.map { "\(scheme)://\($0):\(port)/token" })
        if scheme == "https" {
            let host = hosts.first { $0 != "localhost" && $0 != "127.0.0.1" } ?? "localhost"
            demo.withLock { $0?.tokenUri = "https://\(host):\(port)/token" }
        }
    }

    public func demoFiles() -> [String: Data] {
        guard let account = demoAccount, let json = try? account.json() else { return [:] }
        return ["fcm-service-account.json": json]
    }

    public func demoCredentials() -> [String: Any] {
        guard let data = try? demoAccount?.json(), let json = try? JSONSerialization.jsonObject(with: data) else { return [:] }
        return ["fcmServiceAccount": json]
    }

    // MARK: OAuth

    /// `POST /token`: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`.
    private func token(_ request: SandboxRequest) -> SandboxReply {
        let form = SandboxHTTP.form(request.body)
        func refuse(_ error: String, _ description: String) -> SandboxReply {
            metrics.count(provider: "fcm", endpoint: "token", outcome: error)
            return SandboxHTTP.json(400, ["error": error, "error_description": description])
        }
        guard let grant = form["grant_type"] else { return refuse("invalid_request", "Missing required parameter: grant_type") }
        guard grant == "urn:ietf:params:oauth:grant-type:jwt-bearer" else { return refuse("unsupported_grant_type", "Invalid grant_type: \(grant)") }
        guard let assertion = form["assertion"], !assertion.isEmpty else { return refuse("invalid_request", "Missing required parameter: assertion") }
        do {
            let verified = try verifier.verify(assertion)
            let token = state.issueToken(provider: "fcm", subject: verified.account.projectId, lifetime: tokenLifetime)
            metrics.count(provider: "fcm", endpoint: "token", outcome: "issued")
            return SandboxHTTP.json(200, ["access_token": token, "expires_in": Int(tokenLifetime), "token_type": "Bearer"])
        } catch {
            return refuse(error.error, error.description)
        }
    }

    // MARK: Send

    /// `POST /v1/projects/{project}/messages:send`.
    private func send(_ request: SandboxRequest, project: String) -> SandboxReply {
        guard let bearer = request.bearer else {
            return unauthenticated("Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
        }
        switch state.checkToken(bearer, provider: "fcm") {
        case .unknown, .expired:
            return unauthenticated("Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
        case .valid(let subject) where subject != project:
            return failure(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).", errorCode: nil, outcome: "permission_denied")
        case .valid:
            break
        }

        let body = request.body
        let valid: FCMMessageValidator.Valid
        do {
            valid = try FCMMessageValidator.validate(body: body)
        } catch {
            return failure(400, "INVALID_ARGUMENT", error.message, errorCode: "INVALID_ARGUMENT", outcome: "invalid_argument", field: error.field)
        }

        let faults = state.currentFaults
        var delay = faults.latencyMilliseconds
        var rule: TokenRule?
        if case .token(let token) = valid.target {
            state.countAttempt(provider: "fcm", token: token)
            let parsed = TokenRule(token: token)
            delay += parsed.delayMilliseconds
            rule = parsed
        }
        if let retryAfter = state.injectedThrottle() {
            return failure(for: .quota(times: nil), retryAfter: retryAfter).delayed(by: delay)
        }
        if state.injectedUnavailability() {
            return failure(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE", outcome: "unavailable", retryAfter: 1).delayed(by: delay)
        }
        if case .token(let token) = valid.target, let rule, let failure = rule.failure, failure.appliesToFCM,
           state.failureApplies(rule, provider: "fcm", token: token) {
            return self.failure(for: failure, retryAfter: rule.retryAfterSeconds).delayed(by: delay)
        }

        if valid.validateOnly {
            metrics.count(provider: "fcm", endpoint: "send", outcome: "validated")
            return SandboxHTTP.json(200, ["name": "projects/\(project)/messages/fake_message_id"]).delayed(by: delay)
        }
        let id = "0:\(Int(Date().timeIntervalSince1970 * 1_000_000))%\(String(state.nextSequence(), radix: 16))"
        let recipient: String
        switch valid.target {
        case .token(let token): recipient = token
        case .topic(let topic): recipient = "/topics/\(topic)"
        case .condition(let condition): recipient = condition
        }
        state.accept(.init(id: id, provider: "fcm", app: project, token: recipient, receivedAt: Date(), requestBody: body))
        metrics.count(provider: "fcm", endpoint: "send", outcome: "delivered")
        return SandboxHTTP.rawJSON(200, #"{"name":"# + SandboxHTTP.quoted("projects/\(project)/messages/\(id)") + "}").delayed(by: delay)
    }

    private func failure(for failure: TokenRule.Failure, retryAfter: Int) -> SandboxReply {
        switch failure {
        case .unregistered:
            self.failure(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED", outcome: "unregistered")
        case .invalid:
            self.failure(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", errorCode: "INVALID_ARGUMENT", outcome: "invalid_argument", field: "message.token")
        case .senderMismatch:
            self.failure(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH", outcome: "sender_id_mismatch")
        case .thirdPartyAuth:
            self.failure(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", errorCode: "THIRD_PARTY_AUTH_ERROR", outcome: "third_party_auth_error")
        case .unspecified:
            self.failure(500, "INTERNAL", "Internal error encountered.", errorCode: "UNSPECIFIED_ERROR", outcome: "unspecified_error")
        case .unavailable:
            self.failure(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE", outcome: "unavailable", retryAfter: retryAfter)
        case .internal, .authServiceFailed:
            self.failure(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL", outcome: "internal")
        case .ttlExpired:
            self.failure(400, "INVALID_ARGUMENT", "The message's time to live is over.", errorCode: "INVALID_ARGUMENT", outcome: "invalid_argument", field: "message.android.ttl")
        case .tooMany:
            self.failure(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL", outcome: "internal")
        case .quota:
            self.failure(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send requests' of service 'fcm.googleapis.com'.", errorCode: "QUOTA_EXCEEDED", outcome: "quota_exceeded", retryAfter: retryAfter)
        }
    }

    private func unauthenticated(_ message: String) -> SandboxReply {
        failure(401, "UNAUTHENTICATED", message, errorCode: nil, outcome: "unauthenticated",
                headers: [("www-authenticate", "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\"")])
    }

    /// A google.rpc.Status error, with an FcmError detail when FCM gives one.
    private func failure(
        _ code: Int, _ status: String, _ message: String, errorCode: String?, outcome: String,
        field: String? = nil, retryAfter: Int? = nil, headers: [(name: String, value: String)] = []
    ) -> SandboxReply {
        var details: [[String: Any]] = []
        if let errorCode { details.append(["@type": Self.fcmErrorType, "errorCode": errorCode]) }
        if let field, !field.isEmpty {
            details.append(["@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [["field": field, "description": message]]])
        }
        var error: [String: Any] = ["code": code, "message": message, "status": status]
        if !details.isEmpty { error["details"] = details }
        var fields = headers
        if let retryAfter { fields += SandboxHTTP.retryAfter(retryAfter) }
        metrics.count(provider: "fcm", endpoint: "send", outcome: outcome)
        return SandboxHTTP.json(code, ["error": error], headers: fields)
    }
}

/// The `aud` values a JWT may name: the sandbox's own token endpoints, and Google's.
final class TokenAudiences: Sendable {
    private let values = Mutex<Set<String>>(["https://oauth2.googleapis.com/token"])

    var current: Set<String> { values.withLock { $0 } }

    func insert(_ audiences: [String]) {
        values.withLock { $0.formUnion(audiences) }
    }
}
