import Crypto
import Foundation
import HeraldCrypto
import JSONKit
import Synchronization

/// An app's VAPID key (RFC 8292): signs the ES256 JWT a push service checks, with `aud` the
/// endpoint's origin, `exp` twelve hours ahead (RFC 8292 allows 24) and `sub` the app's
/// contact; one token per origin is kept until it has six hours left.
public final class VAPIDKey: Sendable {
    /// Why a key file cannot be used.
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    let key: P256.Signing.PrivateKey
    /// `k` of the Authorization header: the uncompressed public key, base64url.
    public let publicKey: String
    private let tokens = Mutex<[String: (jwt: String, expires: Date)]>([:])

    static let lifetime: TimeInterval = 12 * 3600
    static let renewal: TimeInterval = 6 * 3600

    public init(pemFile path: String) throws {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw Unusable(description: "cannot read \(path): \(error.localizedDescription)")
        }
        do { key = try P256.Signing.PrivateKey(pemRepresentation: text) } catch {
            throw Unusable(description: "\(path) is not a P-256 private key in PEM")
        }
        publicKey = Base64URL.encode(key.publicKey.x963Representation)
    }

    /// The `Authorization` header value for `endpoint`'s origin: `vapid t=<jwt>, k=<key>`.
    public func authorization(endpoint: URL, subject: String, now: Date = Date()) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw Unusable(description: "the endpoint has no origin") }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        if let cached = tokens.withLock({ $0[origin] }), cached.expires.timeIntervalSince(now) > Self.renewal {
            return "vapid t=\(cached.jwt), k=\(publicKey)"
        }
        let expires = now.addingTimeInterval(Self.lifetime)
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = JSONValue.object(["aud": .string(origin), "exp": .int(Int(expires.timeIntervalSince1970)), "sub": .string(subject)]).json
        let input = header + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        let jwt = input + "." + Base64URL.encode(signature)
        tokens.withLock { $0[origin] = (jwt, expires) }
        return "vapid t=\(jwt), k=\(publicKey)"
    }
}
