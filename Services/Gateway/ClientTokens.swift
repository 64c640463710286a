import Crypto
import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import Metrics
import ServiceKit
import Synchronization

/// Verifies device-side client tokens: JWTs an app's own backend mints for one user
/// (`clientTokens` in the apps file), HS256 with the app's secret or ES256 with its public
/// key. A token is good for the app in its `aud`, until its `exp`, and for the user in its
/// `sub` (and the Smart ID profile ids in `pushIds`); every other token is 401 with a detail
/// that says what is wrong with it, never which secret was tried.
///
/// A verified token is remembered until it expires, by its SHA-256 (which the gateway takes
/// anyway to look up API keys): an app presents the same token for each call of a session,
/// and an ES256 signature costs about 70 µs to check, a lookup under one.
public final class ClientTokens: Sendable {
    /// Clock skew allowed between the minting server and the gateway, on `exp`, `nbf` and `iat`.
    public static let leeway: Double = 60
    /// How many verified tokens are remembered at most; past it the expired go, then all.
    static let cacheLimit = 50_000

    struct AppKeys: Sendable {
        var keys: [JWSVerificationKey]
        var maxLifetime: Double
    }

    struct Verified: Sendable {
        var app: String
        var identity: ClientIdentity
        var expiresAt: Double
    }

    let apps: [String: AppKeys]
    let now: @Sendable () -> Date
    private let verified = Mutex<[[UInt8]: Verified]>([:])

    /// Reads every app's `clientTokens` secret and public key; throws when one cannot be read
    /// or is unusable (a secret under 32 bytes, a key that is not P-256).
    public init(apps: AppsConfiguration, now: @escaping @Sendable () -> Date = Date.init) throws {
        var keys: [String: AppKeys] = [:]
        for (app, configuration) in apps.apps {
            guard let settings = configuration.clientTokens else { continue }
            var appKeys = AppKeys(keys: [], maxLifetime: Double(settings.maxLifetime))
            if let file = settings.hmacSecretFile {
                let setting = "apps.\(app).clientTokens.hmacSecretFile"
                let secret = try SecretFile.text(file, setting: setting)
                guard secret.utf8.count >= ClientTokenSettings.minimumSecretBytes else {
                    throw ConfigurationError(.invalidFile, setting: setting, "an HS256 secret must be at least \(ClientTokenSettings.minimumSecretBytes) bytes (the file \(file) holds \(secret.utf8.count))")
                }
                appKeys.keys.append(.hs256(SymmetricKey(data: Data(secret.utf8))))
            }
            if let file = settings.publicKeyFile {
                let setting = "apps.\(app).clientTokens.publicKeyFile"
                do {
                    appKeys.keys.append(try .es256(pem: try SecretFile.text(file, setting: setting)))
                } catch let error as HeraldCryptoError {
                    throw ConfigurationError(.invalidFile, setting: setting, "\(file): \(error.message)")
                }
            }
            keys[app] = appKeys
        }
        self.apps = keys
        self.now = now
    }

    /// The identity `token` stands for on `app`, or 401 saying why it is refused. `digest` is
    /// the token's SHA-256.
    public func verify(_ token: Substring, digest: [UInt8], app: String) throws(GatewayError) -> ClientIdentity {
        let now = self.now().timeIntervalSince1970
        if let known = verified.withLock({ $0[digest] }), known.app == app {
            guard now < known.expiresAt + Self.leeway else {
                verified.withLock { _ = $0.removeValue(forKey: digest) }
                throw Self.refused(.expired, "the client token expired")
            }
            return known.identity
        }
        let token = try check(token, app: app, now: now)
        verified.withLock { cache in
            if cache.count >= Self.cacheLimit { cache = cache.filter { now < $0.value.expiresAt + Self.leeway } }
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[digest] = token
        }
        return token.identity
    }

    /// Why a token is refused, as counted in `herald_gateway_client_tokens_refused_total`.
    enum Refusal: String {
        case notAccepted = "not_accepted", malformed, algorithm, signature, audience, expired, notYetValid = "not_yet_valid", lifetime, claims
    }

    static func refused(_ reason: Refusal, _ detail: String) -> GatewayError {
        Counter(label: "herald_gateway_client_tokens_refused_total", dimensions: [("reason", reason.rawValue)]).increment()
        return GatewayError(401, "Unauthorized", detail)
    }

    /// Reads and checks a token not seen before: its header, signature and claims, in that
    /// order, so no claim of an unsigned token is looked at.
    private func check(_ text: Substring, app: String, now: Double) throws(GatewayError) -> Verified {
        guard let settings = apps[app] else {
            throw Self.refused(.notAccepted, "this app does not accept client tokens (no clientTokens in its settings), or there is no such app")
        }
        let malformed = "the client token is not a JWT (three base64url parts, the first two JSON objects)"
        guard let jws = CompactJWS(text), let header = try? ClientTokenClaims.read(ClientTokenClaims.Header.self, jws.headerJSON) else {
            throw Self.refused(.malformed, malformed)
        }
        guard let algorithm = header.algorithm else { throw Self.refused(.algorithm, "the client token's header names no alg") }
        guard algorithm.lowercased() != "none" else {
            throw Self.refused(.algorithm, "alg none is refused: a client token must be signed (HS256 or ES256)")
        }
        guard algorithm == "HS256" || algorithm == "ES256" else {
            throw Self.refused(.algorithm, "alg \(algorithm) is not accepted: a client token is signed HS256 or ES256")
        }
        guard !header.critical else {
            throw Self.refused(.malformed, "the client token's header has crit extensions, which Herald does not understand")
        }
        guard let key = settings.keys.first(where: { $0.algorithm == algorithm }) else {
            throw Self.refused(.algorithm, "this app does not accept \(algorithm) client tokens (its clientTokens has no \(algorithm == "HS256" ? "hmacSecretFile" : "publicKeyFile"))")
        }
        guard key.verifies(jws, algorithm: algorithm) else { throw Self.refused(.signature, "the client token's signature does not verify") }
        let claims: ClientTokenClaims
        do { claims = try ClientTokenClaims.read(ClientTokenClaims.self, jws.claimsJSON) } catch {
            guard !error.claim.isEmpty else { throw Self.refused(.malformed, malformed) }
            throw Self.refused(.claims, "the client token's \(error.claim) has the wrong type (aud: a string or list of strings; exp, nbf, iat: seconds since 1970; sub: a string; pushIds: a list of strings)")
        }
        guard let audiences = claims.audiences else { throw Self.refused(.audience, "the client token names no audience (aud): it must be the Herald app id") }
        guard audiences.contains(app) else { throw Self.refused(.audience, "the client token's audience (aud) is not this app") }
        guard let expiresAt = claims.expiresAt else { throw Self.refused(.claims, "the client token has no expiry (exp, seconds since 1970)") }
        guard now < expiresAt + Self.leeway else { throw Self.refused(.expired, "the client token expired") }
        if let notBefore = claims.notBefore, notBefore > now + Self.leeway {
            throw Self.refused(.notYetValid, "the client token is not valid yet (nbf)")
        }
        if let issuedAt = claims.issuedAt, issuedAt > now + Self.leeway {
            throw Self.refused(.notYetValid, "the client token was issued in the future (iat): check the minting server's clock")
        }
        guard expiresAt - (claims.issuedAt ?? now) <= settings.maxLifetime, expiresAt - now <= settings.maxLifetime + Self.leeway else {
            throw Self.refused(.lifetime, "the client token lives longer than this app's maxLifetime of \(Int(settings.maxLifetime)) seconds")
        }
        guard let user = claims.subject, TextLimits.fits(user, maximum: TextLimits.identifier) else {
            throw Self.refused(.claims, "the client token names no user (sub: 1 to \(TextLimits.identifier) characters)")
        }
        var pushIds: [String] = []
        if let listed = claims.pushIds {
            guard listed.count <= 100 else { throw Self.refused(.claims, "pushIds must be a list of up to 100 profile ids") }
            for id in listed {
                guard let trimmed = try? SourceEventIds.trimmedId(id, field: "pushIds") else {
                    throw Self.refused(.claims, "pushIds must be a list of profile ids (strings of 1 to \(TextLimits.identifier) characters)")
                }
                pushIds.append(trimmed)
            }
        }
        return Verified(app: app, identity: ClientIdentity(userId: user, pushIds: pushIds), expiresAt: expiresAt)
    }
}
