import _CryptoExtras
import Crypto
import Foundation
import HeraldCrypto
import HTTPTransport

/// The service-account flow of Google OAuth 2.0: an RS256-signed JWT (`kid`, `iss`, `scope`,
/// `aud` = `token_uri`, `iat`, `exp` one hour later) exchanged at `token_uri` for an access token.
public enum FCMOAuth {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The signed assertion for `account` at `now`.
    public static func assertion(for account: FCMServiceAccount, now: Date = Date()) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        struct Header: Encodable { let alg = "RS256", typ = "JWT", kid: String }
        struct Claims: Encodable { let iss, scope, aud: String; let iat, exp: Int }
        let issued = Int(now.timeIntervalSince1970)
        let input = Base64URL.encode(try encoder.encode(Header(kid: account.privateKeyId))) + "."
            + Base64URL.encode(try encoder.encode(Claims(iss: account.clientEmail, scope: scope, aud: account.tokenUri, iat: issued, exp: issued + 3600)))
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKey)
        } catch {
            throw FCMConfigurationError("the private_key of \(account.clientEmail) is not an RSA private key in PEM: \(error)")
        }
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Exchanges a fresh assertion for an access token and its lifetime in seconds.
    public static func fetchToken(for account: FCMServiceAccount, transport: HTTPTransport) async throws -> (token: String, lifetime: TimeInterval) {
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try assertion(for: account))
        let response = try await transport.send(HTTPRequest(
            method: "POST", url: account.tokenUri,
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8), timeout: .seconds(10)))
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        guard response.status == 200, let token = object?["access_token"] as? String, !token.isEmpty else {
            let detail = object?["error_description"] as? String ?? object?["error"] as? String ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw FCMOAuthError(status: response.status, detail: detail)
        }
        let lifetime = (object?["expires_in"] as? Double) ?? (object?["expires_in"] as? String).flatMap(Double.init) ?? 3600
        return (token, lifetime)
    }
}

/// The token endpoint refused (wrong key, clock skew, revoked account).
public struct FCMOAuthError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var detail: String
    public var description: String { "OAuth token request failed with \(status): \(detail)" }
}
