import Crypto
import Foundation
import HeraldModel
import ProviderEmulation
import ServiceKit
import Synchronization

/// APNs' HTTP/2 provider API as the sandbox plays it: `POST /3/device/<token>` with
/// token-based authentication, answering as Apple documents ("Handling notification
/// responses from APNs"): the provider token verified against the public key of its `kid`
/// (`InvalidProviderToken`, `ExpiredProviderToken` after an hour, `TooManyProviderTokenUpdates`
/// when a connection's token changes within 20 minutes), every header checked, the body
/// limited to 4,096 bytes, and the device token's rules: the hex of an ASCII rule
/// (`TokenRule`, e.g. hex of `unregistered-…`) provokes its answer, a token that is not the
/// hex of 32 to 100 bytes is a `BadDeviceToken`. It accepts the keys of
/// `HERALD_SANDBOX_APNS_KEYS` (comma-separated `<teamId>:<keyId>:<.p8 file>`), those a test
/// hands it, and a demo key it writes as `apns-key.p8` with `apns.json`.
public final class APNsEmulator: ProviderEmulator {
    /// A signing key the sandbox accepts provider tokens of: the team, the key id and the key
    /// (the `.p8`, a P-256 private key in PEM; only its public half is used).
    public struct SigningKey: Sendable, Hashable {
        public var teamId: String
        public var keyId: String
        public var privateKeyPEM: String

        public init(teamId: String, keyId: String, privateKeyPEM: String) {
            self.teamId = teamId
            self.keyId = keyId
            self.privateKeyPEM = privateKeyPEM
        }
    }

    /// A signing key the sandbox accepts: Apple's `.p8` of a team, by its key id.
    struct Key: Sendable {
        var teamId: String
        var keyId: String
        var publicKey: P256.Signing.PublicKey
    }

    public let provider = "apns"
    public let routes = [SandboxRoute("*", "/3/device/:token")]
    /// The topic the demo writes into its apps file (any topic is accepted).
    public static let demoTopic = "app.herald.demo"
    /// The demo signing key's team and key id.
    public static let demoTeamId = "HERALDDEMO", demoKeyId = "DEMOKEY001"
    let state: SandboxState
    let keys: [String: Key]
    let metrics: SandboxMetrics
    /// The demo signing key, when the sandbox makes demo credentials.
    public let demoKey: SigningKey?
    /// Per connection: the `iat` of the provider token it uses now.
    private let connections = Mutex<[UInt64: Int]>([:])
    /// Provider tokens whose signature was verified, with their `iat`: a client sends the
    /// same token for up to an hour, so each is verified once, as APNs does.
    private let verified = Mutex<[String: Int]>([:])

    static let payloadLimit = 4096
    static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets", "controls"]
    /// Apple refuses a token renewed more often than this (seconds).
    static let tokenRenewal = 1200
    /// Apple refuses a token older than this (seconds).
    static let tokenLifetime = 3600

    init(state: SandboxState, keys: [Key], metrics: SandboxMetrics, demoKey: SigningKey? = nil) {
        self.state = state
        self.keys = Dictionary(keys.map { ($0.keyId, $0) }, uniquingKeysWith: { _, last in last })
        self.metrics = metrics
        self.demoKey = demoKey
    }

    convenience init(_ context: EmulatorContext) throws {
        var signingKeys = context.credentials.compactMap { $0 as? SigningKey }
        signingKeys += try EnvironmentReader(context.environment).list("HERALD_SANDBOX_APNS_KEYS").map { item in
            let parts = item.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, let pem = FileManager.default.contents(atPath: parts[2]) else {
                throw ConfigurationError(.invalidFile, setting: "HERALD_SANDBOX_APNS_KEYS", "\(item) is not <teamId>:<keyId>:<readable .p8 file>")
            }
            return SigningKey(teamId: parts[0], keyId: parts[1], privateKeyPEM: String(decoding: pem, as: UTF8.self))
        }
        let demo = context.demoCredentials
            ? SigningKey(teamId: Self.demoTeamId, keyId: Self.demoKeyId, privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation) : nil
        if let demo { signingKeys.append(demo) }
        let keys = try signingKeys.map { key in
            Key(teamId: key.teamId, keyId: key.keyId, publicKey: try P256.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM).publicKey)
        }
        self.init(state: context.state, keys: keys, metrics: context.metrics, demoKey: demo)
    }

    public func handle(_ request: SandboxRequest, route: SandboxRoute, parameters: [String: String]) -> SandboxReply {
        send(request, token: parameters["token"] ?? "")
    }

    public func demoFiles() -> [String: Data] {
        guard let key = demoKey else { return [:] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return [
            "apns-key.p8": Data(key.privateKeyPEM.utf8),
            "apns.json": (try? encoder.encode(["teamId": key.teamId, "keyId": key.keyId, "topic": Self.demoTopic])) ?? Data(),
        ]
    }

    public func demoCredentials() -> [String: Any] {
        guard let key = demoKey else { return [:] }
        return ["apnsKey": ["teamId": key.teamId, "keyId": key.keyId, "topic": Self.demoTopic, "privateKeyPEM": key.privateKeyPEM]]
    }

    /// `POST /3/device/{token}`.
    func send(_ request: SandboxRequest, token: String, now: Date = Date()) -> SandboxReply {
        let apnsId = request.headers["apns-id"] ?? UUID().uuidString
        func refuse(_ status: Int, _ reason: String, timestamp: Date? = nil, retryAfter: Int? = nil) -> SandboxReply {
            metrics.count(provider: "apns", endpoint: "send", outcome: reason)
            var body: [String: Any] = ["reason": reason]
            if let timestamp { body["timestamp"] = Int64((timestamp.timeIntervalSince1970 * 1000).rounded()) }
            var headers: [(name: String, value: String)] = [("apns-id", apnsId)]
            if let retryAfter { headers += SandboxHTTP.retryAfter(retryAfter) }
            return SandboxHTTP.json(status, body, headers: headers)
        }
        guard request.method == "POST" else { return refuse(405, "MethodNotAllowed") }
        if let reason = authenticate(request, now: now) {
            return refuse(reason == "TooManyProviderTokenUpdates" ? 429 : 403, reason)
        }
        if let reason = Self.headerProblem(request.headers) { return refuse(400, reason) }
        guard !request.body.isEmpty else { return refuse(400, "PayloadEmpty") }
        guard request.body.count <= Self.payloadLimit else { return refuse(413, "PayloadTooLarge") }
        guard let bytes = Hex.decode(token), (32...100).contains(bytes.count) else { return refuse(400, "BadDeviceToken") }
        state.countAttempt(provider: "apns", token: token)

        // The token's rule, when its bytes are the text of one.
        let rule = TokenRule(token: String(decoding: bytes.prefix(while: { (0x21...0x7E).contains($0) }), as: UTF8.self))
        let faults = state.currentFaults
        let delay = faults.latencyMilliseconds + rule.delayMilliseconds
        if let retryAfter = state.injectedThrottle(now: now) {
            return refuse(429, "TooManyRequests", retryAfter: retryAfter).delayed(by: delay)
        }
        if state.injectedUnavailability(now: now) {
            return refuse(503, "ServiceUnavailable", retryAfter: 1).delayed(by: delay)
        }
        if let failure = rule.failure, state.failureApplies(rule, provider: "apns", token: token) {
            let retry = rule.retryAfterSeconds
            switch failure {
            case .unregistered: return refuse(410, "Unregistered", timestamp: rule.invalidSince ?? now).delayed(by: delay)
            case .invalid: return refuse(400, "BadDeviceToken").delayed(by: delay)
            case .senderMismatch: return refuse(400, "DeviceTokenNotForTopic").delayed(by: delay)
            case .unavailable: return refuse(503, "ServiceUnavailable", retryAfter: retry).delayed(by: delay)
            case .quota: return refuse(429, "TooManyRequests", retryAfter: retry).delayed(by: delay)
            case .internal, .unspecified, .authServiceFailed: return refuse(500, "InternalServerError").delayed(by: delay)
            case .thirdPartyAuth, .ttlExpired, .tooMany: break
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in request.headers where name.hasPrefix("apns-") { headers[name] = value }
        let topic = request.headers["apns-topic"] ?? ""
        state.accept(.init(id: apnsId, provider: "apns", app: topic, token: token, receivedAt: now, requestBody: request.body, headers: headers))
        metrics.count(provider: "apns", endpoint: "send", outcome: "delivered")
        return SandboxReply(status: 200, headers: [("apns-id", apnsId)]).delayed(by: delay)
    }

    /// Why the provider token is refused, in Apple's words, or nil.
    private func authenticate(_ request: SandboxRequest, now: Date) -> String? {
        guard let jwt = request.bearer else { return "MissingProviderToken" }
        let iat: Int
        if let known = verified.withLock({ $0[jwt] }) {
            iat = known
        } else {
            guard let checked = verify(jwt) else { return "InvalidProviderToken" }
            iat = checked
            verified.withLock { table in
                if table.count > 10_000 { table.removeAll() }
                table[jwt] = checked
            }
        }
        return check(iat: iat, connection: request.connection, now: now)
    }

    /// The `iat` of a provider token signed by a known key for its team, or nil.
    private func verify(_ jwt: String) -> Int? {
        guard let token = CompactJWT(jwt),
              token.header["alg"] as? String == "ES256",
              let keyId = token.header["kid"] as? String, let key = keys[keyId],
              token.claims["iss"] as? String == key.teamId,
              let iat = (token.claims["iat"] as? NSNumber).map({ $0.intValue }),
              let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature),
              key.publicKey.isValidSignature(ecdsa, for: token.signingInput)
        else { return nil }
        return iat
    }

    /// Why a verified token issued at `iat` is refused now on `connection`, or nil.
    private func check(iat: Int, connection: UInt64?, now: Date) -> String? {
        let nowSeconds = Int(now.timeIntervalSince1970)
        if iat > nowSeconds + 300 { return "InvalidProviderToken" }
        if nowSeconds - iat > Self.tokenLifetime { return "ExpiredProviderToken" }
        if let connection {
            let tooSoon = connections.withLock { table -> Bool in
                if table.count > 100_000 { table.removeAll() }
                guard let current = table[connection] else { table[connection] = iat; return false }
                // An older token still in use on the connection is fine; a newer one must be
                // 20 minutes newer.
                guard iat > current else { return false }
                if iat - current < Self.tokenRenewal { return true }
                table[connection] = iat
                return false
            }
            if tooSoon { return "TooManyProviderTokenUpdates" }
        }
        return nil
    }

    /// The first header Apple would refuse, as its reason.
    static func headerProblem(_ headers: [String: String]) -> String? {
        guard let topic = headers["apns-topic"], !topic.isEmpty else { return "MissingTopic" }
        let pushType = headers["apns-push-type"]
        if let pushType, !pushTypes.contains(pushType) { return "InvalidPushType" }
        if let priority = headers["apns-priority"] {
            guard ["1", "5", "10"].contains(priority) else { return "BadPriority" }
            // "Specifying this priority for a background notification is an error."
            if pushType == "background", priority == "10" { return "BadPriority" }
        }
        if let expiration = headers["apns-expiration"], Int64(expiration).map({ $0 < 0 }) ?? true { return "BadExpirationDate" }
        if let collapseId = headers["apns-collapse-id"], collapseId.utf8.count > 64 { return "BadCollapseId" }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil { return "BadMessageId" }
        return nil
    }

    /// A device token carrying `rule` (e.g. `unregistered-`): its hex, padded to 32 bytes
    /// with `filler`'s hex digits.
    public static func token(rule: String, filler: String = UUID().uuidString) -> String {
        var bytes = Array(rule.utf8) + Array(filler.utf8.filter { $0 != UInt8(ascii: "-") })
        while bytes.count < 32 { bytes.append(UInt8(ascii: "0")) }
        return Hex.encode(bytes)
    }
}
