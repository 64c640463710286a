import HMS
import FCM
import _CryptoExtras
import Foundation
import HeraldTestSupport
import ProviderSandbox
import HMSEmulation
import FCMEmulation

/// Talks to a running sandbox with the `curl` CLI: HTTPS with HTTP/2 (trusting the
/// sandbox's CA) or plain HTTP/1.1.
struct SandboxClient: Sendable {
    let running: RunningSandbox
    let caFile: URL

    struct Answer: Sendable {
        var status: Int
        var httpVersion: String
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func start(_ configuration: SandboxConfiguration = SandboxConfiguration(httpsPort: 0)) async throws -> SandboxClient {
        let running = try await RunningSandbox.start(configuration: configuration)
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-ca-\(UUID()).pem")
        try Data(running.sandbox.certificates.caPEM.utf8).write(to: caFile)
        return SandboxClient(running: running, caFile: caFile)
    }

    func stop() async {
        await running.stop()
        try? FileManager.default.removeItem(at: caFile)
    }

    var https: String { "https://localhost:\(running.httpsPort)" }
    var http: String { "http://127.0.0.1:\(running.httpPort)" }

    /// Runs curl; `secure` picks HTTPS with HTTP/2, otherwise plain HTTP/1.1.
    func request(_ method: String, _ path: String, body: Data? = nil, contentType: String = "application/json",
                 bearer: String? = nil, secure: Bool = true) async throws -> Answer {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var arguments = ["-sS", "-X", method, "-D", scratch.appendingPathComponent("headers").path,
                         "-o", scratch.appendingPathComponent("body").path, "-w", "%{http_code} %{http_version}"]
        if secure {
            arguments += ["--http2", "--cacert", caFile.path, https + path]
        } else {
            arguments += ["--http1.1", http + path]
        }
        if let bearer { arguments += ["-H", "Authorization: Bearer \(bearer)"] }
        if let body {
            let file = scratch.appendingPathComponent("request")
            try body.write(to: file)
            arguments += ["-H", "Content-Type: \(contentType)", "--data-binary", "@\(file.path)"]
        }
        let (exit, output) = try await runCommand("curl", arguments)
        guard exit == 0 else { throw TestFailure("curl \(arguments.joined(separator: " ")) exited \(exit): \(output)") }
        let parts = output.split(separator: " ")
        guard parts.count == 2, let status = Int(parts[0]) else { throw TestFailure("curl printed \(output)") }
        var headers: [String: String] = [:]
        let headerText = (try? String(contentsOf: scratch.appendingPathComponent("headers"), encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: scratch.appendingPathComponent("body"))) ?? Data()
        return Answer(status: status, httpVersion: String(parts[1]), headers: headers, body: body)
    }

    func json(_ object: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    // MARK: FCM

    /// A signed JWT-bearer assertion for `account`, with claims overridable for negative tests.
    static func assertion(for account: ServiceAccount, signingKeyPEM: String? = nil, claims overrides: [String: Any] = [:], now: Date = Date()) throws -> String {
        let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": account.privateKeyId]
        var claims: [String: Any] = [
            "iss": account.clientEmail, "scope": "https://www.googleapis.com/auth/firebase.messaging",
            "aud": account.tokenUri, "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600,
        ]
        for (key, value) in overrides { claims[key] = value }
        func encode(_ object: Any) throws -> String {
            base64url(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        }
        let input = "\(try encode(header)).\(try encode(claims))"
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: signingKeyPEM ?? account.privateKey)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return "\(input).\(base64url(signature.rawRepresentation))"
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The demo account, its token_uri pointing at this sandbox.
    var account: ServiceAccount { running.sandbox.emulator(FCMEmulator.self)!.demoAccount! }

    func tokenRequest(assertion: String, grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer") async throws -> Answer {
        let form = "grant_type=\(grantType.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&assertion=\(assertion)"
        return try await request("POST", "/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// An FCM access token for the demo account.
    func fcmAccessToken() async throws -> String {
        let answer = try await tokenRequest(assertion: try Self.assertion(for: account))
        guard answer.status == 200, let token = answer.json["access_token"] as? String else { throw TestFailure("no token: \(answer.text)") }
        return token
    }

    func sendFCM(_ message: [String: Any], token: String, project: String = "herald-demo", validateOnly: Bool? = nil) async throws -> Answer {
        var body: [String: Any] = ["message": message]
        if let validateOnly { body["validate_only"] = validateOnly }
        return try await request("POST", "/v1/projects/\(project)/messages:send", body: json(body), bearer: token)
    }

    // MARK: HMS

    var hmsClient: HMSEmulator.Client { running.sandbox.emulator(HMSEmulator.self)!.demoClient! }

    func hmsTokenRequest(clientId: String? = nil, secret: String? = nil, grantType: String = "client_credentials") async throws -> Answer {
        let form = "grant_type=\(grantType)&client_id=\(clientId ?? hmsClient.clientId)&client_secret=\((secret ?? hmsClient.clientSecret).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        return try await request("POST", "/oauth2/v3/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
    }

    func hmsAccessToken() async throws -> String {
        let answer = try await hmsTokenRequest()
        guard answer.status == 200, let token = answer.json["access_token"] as? String else { throw TestFailure("no token: \(answer.text)") }
        return token
    }

    func sendHMS(_ message: [String: Any], token: String, app: String? = nil) async throws -> Answer {
        try await request("POST", "/v1/\(app ?? hmsClient.clientId)/messages:send", body: json(["validate_only": false, "message": message]), bearer: token)
    }
}
