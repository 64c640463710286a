import _CryptoExtras
import Crypto
import DispatchKit
import Foundation
import HeraldCrypto

/// The service-account grant of Google OAuth 2.0 (RFC 7523): an RS256-signed JWT (`kid`,
/// `iss`, `scope`, `aud` = `token_uri`, `iat`, `exp` one hour later) exchanged at `token_uri`
/// for an access token.
public enum FCMOAuth {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The signed assertion for `account` at `now`.
    public static func assertion(for account: FCMServiceAccount, now: Date = Date()) throws -> String {
        struct Header: Encodable { let alg = "RS256", typ = "JWT", kid: String }
        struct Claims: Encodable { let iss, scope, aud: String; let iat, exp: Int }
        let issued = Int(now.timeIntervalSince1970)
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKey)
        } catch {
            throw FCMConfigurationError("the private_key of \(account.clientEmail) is not an RSA private key in PEM: \(error)")
        }
        return try JWS.compact(
            header: Header(kid: account.privateKeyId),
            claims: Claims(iss: account.clientEmail, scope: scope, aud: account.tokenUri, iat: issued, exp: issued + 3600)
        ) { try key.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation }
    }

    /// Exchanges a fresh assertion for an access token at `endpoint` (the account's `token_uri`).
    public static func requestToken(for account: FCMServiceAccount, at endpoint: OAuthTokenEndpoint) async throws -> AccessToken {
        try await endpoint.requestToken(form: OAuthTokenEndpoint.form([
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", try assertion(for: account)),
        ]))
    }
}
