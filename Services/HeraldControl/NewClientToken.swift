import Crypto
import Foundation
import HeraldCrypto
import HeraldDomain
import ServiceKit

/// A device-side client token for testing, minted as the tenant's backend would: HS256 with
/// the app's `clientTokens.hmacSecretFile`, or ES256 with a private key the operator holds
/// (the app's `publicKeyFile` is only the public half). Claims `aud` (the app), `sub`, `iat`,
/// `exp` and, when given, `pushIds`.
public struct NewClientToken: Sendable {
    public let token: String
    public let expiresAt: Date

    /// `ttl` seconds from `now`, at most the app's `maxLifetime`; `privateKeyPEM` signs ES256.
    public init(
        apps: AppsConfiguration, app: String, user: String, pushIds: [String] = [], ttl: Int = 3600,
        privateKeyPEM: String? = nil, now: Date = Date()
    ) throws(ControlError) {
        guard let configuration = apps.apps[app] else { throw ControlError(.notFound, "the apps file has no app \(app)") }
        guard let settings = configuration.clientTokens else {
            throw ControlError(.invalidInput, "app \(app) takes no client tokens: give it a clientTokens section (see docs/configuration.md)")
        }
        guard !user.isEmpty else { throw ControlError(.invalidInput, "--user: the token's user id (sub) is required") }
        guard ttl > 0, ttl <= settings.maxLifetime else {
            throw ControlError(.invalidInput, "--ttl: 1 to \(settings.maxLifetime) seconds (the app's maxLifetime)")
        }
        struct Header: Encodable { var alg: String; var typ = "JWT" }
        struct Claims: Encodable {
            var aud: String, sub: String, iat: Int, exp: Int
            var pushIds: [String]?
        }
        let issued = Int(now.timeIntervalSince1970)
        let claims = Claims(aud: app, sub: user, iat: issued, exp: issued + ttl, pushIds: pushIds.isEmpty ? nil : pushIds)
        do {
            if let privateKeyPEM {
                guard settings.publicKeyFile != nil else { throw ControlError(.invalidInput, "app \(app) takes no ES256 tokens (no clientTokens.publicKeyFile)") }
                let key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
                token = try JWS.compact(header: Header(alg: "ES256"), claims: claims) { try key.signature(for: $0).rawRepresentation }
            } else {
                guard let file = settings.hmacSecretFile else {
                    throw ControlError(.invalidInput, "app \(app) takes only ES256 tokens: give --es256-key with the private key's PEM file")
                }
                let secret = SymmetricKey(data: Data(try SecretFile.text(file, setting: "apps.\(app).clientTokens.hmacSecretFile").utf8))
                token = try JWS.compact(header: Header(alg: "HS256"), claims: claims) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
            }
        } catch let error as ControlError {
            throw error
        } catch let error as ConfigurationError {
            throw ControlError(.invalidInput, error.description)
        } catch {
            throw ControlError(.invalidInput, "cannot sign the token: \(error)")
        }
        expiresAt = Date(timeIntervalSince1970: TimeInterval(issued + ttl))
    }
}
