import _CryptoExtras
import Crypto
import Foundation
import ProviderEmulation

/// Checks the JWT of an OAuth JWT-bearer grant the way Google's token endpoint does:
/// RS256 signature by a known service account, `iss`, `scope`, `aud`, `iat` and
/// `exp` ≤ `iat` + 1 h, not expired.
struct JWTBearerVerifier: Sendable {
    /// The scopes FCM's `messages:send` accepts (either one). A grant may ask for others
    /// beside them, as Google's Admin SDKs do; a grant with neither is refused.
    static let fcmScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    /// The accounts whose signatures are accepted, by client email.
    let accounts: [String: (account: ServiceAccount, key: _RSA.Signing.PublicKey)]
    /// The `aud` the JWT must name: the token endpoint's URL(s).
    let audiences: @Sendable () -> Set<String>

    struct Grant: Sendable {
        var account: ServiceAccount
    }

    /// Why a grant was refused, in the words of Google's token endpoint.
    struct Refusal: Error, Equatable {
        var error: String
        var description: String
    }

    func verify(_ assertion: String, now: Date = Date()) throws(Refusal) -> Grant {
        guard let jwt = CompactJWT(assertion) else { throw Refusal(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.") }
        guard jwt.header["alg"] as? String == "RS256" else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: unsupported algorithm \(jwt.header["alg"] ?? "none"); expected RS256")
        }
        guard let issuer = jwt.claims["iss"] as? String, let known = accounts[issuer] else {
            throw Refusal(error: "invalid_grant", description: "Invalid grant: account not found")
        }
        if let kid = jwt.header["kid"] as? String, kid != known.account.privateKeyId {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT Signature.")
        }
        let valid = known.key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature), for: jwt.signingInput, padding: .insecurePKCS1v1_5)
        guard valid else { throw Refusal(error: "invalid_grant", description: "Invalid JWT Signature.") }
        let scopes = (jwt.claims["scope"] as? String)?.split(separator: " ").map(String.init) ?? []
        guard !Self.fcmScopes.isDisjoint(with: scopes) else {
            throw Refusal(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
        }
        guard let audience = jwt.claims["aud"] as? String, audiences().contains(audience) else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: aud must be the token endpoint, got \(jwt.claims["aud"] ?? "nothing")")
        }
        guard let iat = (jwt.claims["iat"] as? NSNumber)?.doubleValue, let exp = (jwt.claims["exp"] as? NSNumber)?.doubleValue,
              exp > iat, exp - iat <= 3600, iat <= now.timeIntervalSince1970 + 300, exp > now.timeIntervalSince1970
        else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
        }
        return Grant(account: known.account)
    }
}
