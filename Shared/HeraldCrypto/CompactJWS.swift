import Crypto
import Foundation

/// A JWS in compact serialization (`header.claims.signature`, RFC 7515 §7.1) read but not yet
/// trusted: its header and claims as JSON objects, the bytes its signature covers and the
/// signature. `JWSVerificationKey` says whether the signature holds.
public struct CompactJWS {
    public var header: [String: Any]
    public var claims: [String: Any]
    /// `header.claims` as sent: what the signature covers.
    public var signingInput: Data
    public var signature: Data

    /// The header's `alg`, when it is a string.
    public var algorithm: String? { header["alg"] as? String }

    /// Nil when `text` is not three base64url parts of which the first two are JSON objects.
    public init?(_ text: Substring) {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ".")),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ".")),
              !utf8[utf8.index(after: second)...].contains(UInt8(ascii: "."))
        else { return nil }
        let headerPart = text[..<first], claimsPart = text[text.index(after: first)..<second], signaturePart = text[text.index(after: second)...]
        guard let headerData = Base64URL.decode(String(headerPart)), let claimsData = Base64URL.decode(String(claimsPart)),
              let signature = Base64URL.decode(String(signaturePart)),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return nil }
        self.header = header
        self.claims = claims
        self.signature = signature
        signingInput = Data(text[..<second].utf8)
    }
}

/// A key that checks a JWS's signature: an HMAC secret (HS256) or a P-256 public key (ES256,
/// the signature as JOSE's 64 bytes r‖s, RFC 7518 §3.4). Each checks only its own algorithm.
public enum JWSVerificationKey: Sendable {
    case hs256(SymmetricKey)
    case es256(P256.Signing.PublicKey)

    /// The `alg` this key verifies.
    public var algorithm: String {
        switch self {
        case .hs256: "HS256"
        case .es256: "ES256"
        }
    }

    /// An ES256 key from a PEM public key (`-----BEGIN PUBLIC KEY-----`, a P-256 SPKI).
    public static func es256(pem: String) throws(HeraldCryptoError) -> JWSVerificationKey {
        do { return .es256(try P256.Signing.PublicKey(pemRepresentation: pem)) } catch {
            throw HeraldCryptoError(.unsupportedKey, "not a P-256 public key in PEM (-----BEGIN PUBLIC KEY-----)")
        }
    }

    /// Whether `jws` names this key's algorithm and its signature holds (compared in constant time for HMAC).
    public func verifies(_ jws: CompactJWS) -> Bool {
        guard jws.algorithm == algorithm else { return false }
        switch self {
        case .hs256(let secret):
            return HMAC<SHA256>.isValidAuthenticationCode(jws.signature, authenticating: jws.signingInput, using: secret)
        case .es256(let key):
            guard jws.signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: jws.signingInput)
        }
    }
}
