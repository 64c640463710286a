import Crypto
import Foundation
import HeraldCrypto
import ServiceKit

/// An app's APNs signing key and the claims of its provider tokens: an ES256 JWT with
/// header `kid` (the key id) and claims `iss` (the team id) and `iat`, as Apple's
/// token-based authentication requires.
public struct APNsSigningKey: Sendable {
    public let teamId: String
    public let keyId: String
    let key: P256.Signing.PrivateKey

    public init(teamId: String, keyId: String, key: P256.Signing.PrivateKey) {
        self.teamId = teamId
        self.keyId = keyId
        self.key = key
    }

    /// Reads the `.p8` file at `path`; throws `ConfigurationError` naming `setting`, without
    /// quoting the file.
    public static func load(path: String, teamId: String, keyId: String, setting: String) throws -> APNsSigningKey {
        let text = String(decoding: try SecretFile.data(path, setting: setting), as: UTF8.self)
        do {
            return APNsSigningKey(teamId: teamId, keyId: keyId, key: try P256.Signing.PrivateKey(pemRepresentation: text))
        } catch {
            throw ConfigurationError(.invalidFile, setting: setting, "\(path) is not an APNs signing key (a P-256 private key in PEM, as Apple's .p8)")
        }
    }

    /// A provider token issued at `now` (`iat` in whole seconds).
    public func token(issuedAt now: Date) throws -> String {
        struct Header: Encodable { let alg = "ES256", kid: String }
        struct Claims: Encodable { let iss: String, iat: Int }
        // ES256's signature is the raw r || s (RFC 7518 §3.4), not DER.
        return try JWS.compact(header: Header(kid: keyId), claims: Claims(iss: teamId, iat: Int(now.timeIntervalSince1970))) {
            try key.signature(for: $0).rawRepresentation
        }
    }
}
