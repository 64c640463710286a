import Crypto
import Foundation

/// A JWS in compact serialization (`header.claims.signature`, RFC 7515 §7.1) read but not yet
/// trusted: its header and claims as the JSON bytes they encode (for the caller to read as it
/// likes), the bytes its signature covers and the signature. `JWSVerificationKey` says whether
/// the signature holds.
public struct CompactJWS: Sendable {
    public var headerJSON: Data
    public var claimsJSON: Data
    /// `header.claims` as sent: what the signature covers.
    public var signingInput: Data
    public var signature: Data

    /// Nil when `text` is not three base64url parts.
    public init?(_ text: Substring) {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ".")),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ".")),
              !utf8[utf8.index(after: second)...].contains(UInt8(ascii: "."))
        else { return nil }
        guard let header = Base64URL.decode(String(text[..<first])),
              let claims = Base64URL.decode(String(text[text.index(after: first)..<second])),
              let signature = Base64URL.decode(String(text[text.index(after: second)...]))
        else { return nil }
        headerJSON = header
        claimsJSON = claims
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

    /// Whether `algorithm` (the `alg` of the JWS's header) is this key's and the signature
    /// holds (compared in constant time for HMAC).
    public func verifies(_ jws: CompactJWS, algorithm: String) -> Bool {
        guard algorithm == self.algorithm else { return false }
        switch self {
        case .hs256(let secret):
            return HMAC<SHA256>.isValidAuthenticationCode(jws.signature, authenticating: jws.signingInput, using: secret)
        case .es256(let key):
            guard jws.signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: jws.signingInput)
        }
    }
}
