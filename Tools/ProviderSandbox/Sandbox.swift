import _CryptoExtras
import Crypto
import Foundation
import HeraldModel
import Logging
import Synchronization

/// The provider sandbox: FCM HTTP v1, Huawei Push Kit and APNs, their authentication, token rules
/// for every provider answer, fault injection, and an inbox of what was accepted. The same
/// routes serve plain HTTP/1.1 and HTTPS with HTTP/2 (see `SandboxServer`).
public final class Sandbox: Sendable {
    public let configuration: SandboxConfiguration
    public let state: SandboxState
    public let certificates: SandboxCertificates
    /// The demo service account, when `demoCredentials` is on (its `token_uri` names the HTTPS port).
    public var demoServiceAccount: ServiceAccount? { demo.withLock { $0.account } }
    /// The demo HMS client, when `demoCredentials` is on.
    public let demoHMSClient: SandboxConfiguration.HMSClient?
    /// The demo APNs signing key, when `demoCredentials` is on.
    public let demoAPNsKey: SandboxConfiguration.APNsKey?
    /// The topic the demo writes into its apps file (any topic is accepted).
    public static let demoAPNsTopic = "app.herald.demo"
    /// The tenant endpoint webhooks are forwarded to: `POST /webhooks/{name}`.
    public let webhooks: WebhookReceiver

    private let fcm: FCMEmulator
    private let hms: HMSEmulator
    private let apns: APNsEmulator
    private let metrics = SandboxMetrics()
    private let audiences = TokenAudiences()
    private let demo = Mutex<(account: ServiceAccount?, key: _RSA.Signing.PublicKey?)>((nil, nil))
    private let logger: Logger

    /// The demo account's RSA key, made once a process: a 2048-bit key takes a good part of a
    /// second of CPU to generate, and a test process starts dozens of sandboxes at once.
    private static let demoKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    public init(configuration: SandboxConfiguration, logger: Logger = Logger(label: "herald.sandbox")) throws {
        self.configuration = configuration
        self.logger = logger
        state = SandboxState(inboxCapacity: configuration.inboxCapacity)
        webhooks = WebhookReceiver(capacity: configuration.inboxCapacity)
        certificates = try SandboxCertificates.generate(hostnames: configuration.hostnames)
        var accounts = configuration.serviceAccounts
        var clients = configuration.hmsClients
        if configuration.demoCredentials {
            let account = try ServiceAccount.generate(
                projectId: "herald-demo", tokenUri: "https://localhost:\(configuration.httpsPort ?? 8443)/token", key: Self.demoKey.get())
            demo.withLock { $0 = (account, try? account.publicKey()) }
            accounts.append(account)
            let client = SandboxConfiguration.HMSClient(clientId: "100000001", clientSecret: Base64URL.encode(Data((0..<24).map { _ in UInt8.random(in: 0...255) })))
            clients.append(client)
            demoHMSClient = client
            let key = SandboxConfiguration.APNsKey(teamId: "HERALDDEMO", keyId: "DEMOKEY001", privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation)
            demoAPNsKey = key
        } else {
            demoHMSClient = nil
            demoAPNsKey = nil
        }
        var apnsKeys: [APNsEmulator.Key] = []
        for key in configuration.apnsKeys + (demoAPNsKey.map { [$0] } ?? []) {
            apnsKeys.append(APNsEmulator.Key(teamId: key.teamId, keyId: key.keyId, publicKey: try P256.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM).publicKey))
        }
        var known: [String: (account: ServiceAccount, key: _RSA.Signing.PublicKey)] = [:]
        for account in accounts { known[account.clientEmail] = (account, try account.publicKey()) }
        let audiences = audiences
        fcm = FCMEmulator(
            state: state,
            verifier: JWTBearerVerifier(accounts: known, audiences: { audiences.current }),
            metrics: metrics, tokenLifetime: configuration.tokenLifetime)
        hms = HMSEmulator(
            state: state,
            clients: Dictionary(clients.map { ($0.clientId, HMSEmulator.Client(clientId: $0.clientId, clientSecret: $0.clientSecret)) }, uniquingKeysWith: { _, last in last }),
            metrics: metrics, tokenLifetime: configuration.tokenLifetime)
        apns = APNsEmulator(state: state, keys: apnsKeys, metrics: metrics)
        if let directory = configuration.directory {
            try certificates.write(to: directory)
            writeDemoCredentials()
        }
    }

    /// Records that the sandbox listens on `port` (`scheme` http or https), so JWTs whose
    /// `aud` names this token endpoint are accepted, and rewrites the demo account's
    /// `token_uri` to the HTTPS port actually bound.
    public func listening(scheme: String, port: Int) {
        let hosts = ["localhost", "127.0.0.1"] + configuration.hostnames
        audiences.insert(hosts.map { "\(scheme)://\($0):\(port)/token" })
        if scheme == "https" {
            demo.withLock { current in
                current.account?.tokenUri = "https://\(configuration.hostnames.first ?? "localhost"):\(port)/token"
            }
            writeDemoCredentials()
        }
        logger.info("sandbox listening", metadata: ["scheme": "\(scheme)", "port": "\(port)"])
    }

    private func writeDemoCredentials() {
        guard let directory = configuration.directory else { return }
        do {
            if let account = demoServiceAccount {
                try account.json().write(to: directory.appendingPathComponent("fcm-service-account.json"), options: .atomic)
            }
            if let client = demoHMSClient {
                try Data(client.clientSecret.utf8).write(to: directory.appendingPathComponent("hms-client-secret"), options: .atomic)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(["appId": client.clientId, "clientId": client.clientId]).write(to: directory.appendingPathComponent("hms-client.json"), options: .atomic)
            }
            if let key = demoAPNsKey {
                try Data(key.privateKeyPEM.utf8).write(to: directory.appendingPathComponent("apns-key.p8"), options: .atomic)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(["teamId": key.teamId, "keyId": key.keyId, "topic": Self.demoAPNsTopic])
                    .write(to: directory.appendingPathComponent("apns.json"), options: .atomic)
            }
        } catch {
            logger.error("could not write the demo credentials", metadata: ["directory": "\(directory.path)", "error": "\(error)"])
        }
    }

    /// Answers one request: the provider, inbox and admin endpoints. Front ends (plain HTTP
    /// on Hummingbird, HTTPS with HTTP/2 on NIO) only translate to and from this.
    public func handle(_ request: SandboxRequest) -> SandboxReply {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        let admin = SandboxAdmin(sandbox: self)
        switch (request.method, segments.count) {
        case ("POST", 1) where segments[0] == "token":
            return fcm.token(request)
        case ("POST", 4) where segments[0] == "v1" && segments[1] == "projects" && segments[3] == "messages:send":
            return fcm.send(request, project: String(segments[2]))
        case ("POST", 3) where request.path == "/oauth2/v3/token":
            return hms.token(request)
        case ("POST", 3) where segments[0] == "v1" && segments[2] == "messages:send":
            return hms.send(request, appId: String(segments[1]))
        case (_, 3) where segments[0] == "3" && segments[1] == "device":
            return apns.send(request, token: String(segments[2]))
        case ("POST", 2) where segments[0] == "webhooks":
            return webhooks.receive(request, name: String(segments[1]))
        case (_, 2) where segments[0] == "sandbox":
            switch (request.method, segments[1]) {
            case ("GET", "messages"): return admin.messages(request)
            case ("DELETE", "messages"): return admin.clear()
            case ("GET", "requests"): return admin.requests(request)
            case ("GET", "receipts"): return admin.receipts(request)
            case ("GET", "webhooks"): return admin.webhooks(request)
            case ("DELETE", "webhooks"): return admin.clearWebhooks()
            case ("GET", "faults"): return admin.faults()
            case ("PUT", "faults"): return admin.setFaults(request)
            case ("DELETE", "faults"): return admin.resetFaults()
            case ("GET", "credentials"): return admin.credentials()
            case ("DELETE", "tokens"): return admin.revokeTokens()
            default: break
            }
        default:
            break
        }
        return admin.problem(404, "no endpoint \(request.method) \(request.path)", title: "Not Found")
    }

    /// An APNs device token (the hex of at least 32 bytes) whose bytes spell the token rule
    /// `rule` (e.g. `unregistered-`), padded with `filler`'s letters and digits.
    public static func apnsToken(rule: String = "", filler: String = UUID().uuidString) -> String {
        APNsEmulator.token(rule: rule, filler: filler)
    }

    /// The paths `handle` serves, for front ends that route by path.
    public static let routes: [(method: String, path: String)] = [
        ("POST", "/token"), ("POST", "/v1/projects/:project/messages:send"),
        ("POST", "/oauth2/v3/token"), ("POST", "/v1/:appId/messages:send"),
        ("POST", "/3/device/:token"), ("POST", "/webhooks/:name"), ("GET", "/sandbox/webhooks"), ("DELETE", "/sandbox/webhooks"),
        ("GET", "/sandbox/messages"), ("DELETE", "/sandbox/messages"), ("GET", "/sandbox/requests"),
        ("GET", "/sandbox/receipts"), ("GET", "/sandbox/faults"), ("PUT", "/sandbox/faults"), ("DELETE", "/sandbox/faults"),
        ("GET", "/sandbox/credentials"), ("DELETE", "/sandbox/tokens"),
    ]
}

/// The `aud` values a JWT may name: the sandbox's own token endpoints, and Google's.
final class TokenAudiences: Sendable {
    private let values = Mutex<Set<String>>(["https://oauth2.googleapis.com/token"])

    var current: Set<String> { values.withLock { $0 } }

    func insert(_ audiences: [String]) {
        values.withLock { $0.formUnion(audiences) }
    }
}
