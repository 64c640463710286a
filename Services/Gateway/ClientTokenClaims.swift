import Foundation
import HeraldModel
import JSONKit

/// What the gateway reads of a client token's claims: `aud`, `exp`, `nbf`, `iat`, `sub` and
/// `pushIds`. As Herald's contracts are read: with `JSONReader` first (a token is checked on a
/// request's path, and `JSONDecoder` costs more than the HMAC), and with the `Decodable`
/// conformance for anything outside the reader's subset (numbers with fractions, repeated
/// members), which decides and names the claim at fault.
struct ClientTokenClaims: Decodable, JSONReadable {
    var audiences: [String]?
    var expiresAt: Double?
    var notBefore: Double?
    var issuedAt: Double?
    var subject: String?
    var pushIds: [String]?

    /// The header's members the gateway reads: `alg`, and whether there is a `crit`.
    struct Header: Decodable, JSONReadable {
        var algorithm: String?
        var critical = false

        private enum CodingKeys: String, CodingKey { case alg, crit }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            algorithm = try c.decodeIfPresent(String.self, forKey: .alg)
            critical = c.contains(.crit)
        }

        init(reading json: inout JSONReader) throws {
            var seen = Set<String>()
            try json.object { key, reader in
                guard seen.insert(key).inserted else { throw JSONReader.Mismatch() }
                switch key {
                case "alg": algorithm = try reader.string()
                case "crit": critical = true; try reader.skip()
                default: try reader.skip()
                }
            }
        }
    }

    /// A claim present with a value of the wrong type (or the claims not a JSON object: `claim` empty).
    struct Unreadable: Error, Equatable {
        var claim: String
    }

    /// `T` read from `json`, the reader first, else the decoder.
    static func read<T: Decodable & JSONReadable>(_ type: T.Type, _ json: Data) throws(Unreadable) -> T {
        if let value = JSONReader.read(json, { try T(reading: &$0) }) { return value }
        do { return try HeraldJSON.decode(T.self, from: json) } catch let error as DecodingError {
            let path: [any CodingKey] = switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context): context.codingPath
            @unknown default: []
            }
            throw Unreadable(claim: path.first?.stringValue ?? "")
        } catch {
            throw Unreadable(claim: "")
        }
    }

    private enum CodingKeys: String, CodingKey { case aud, exp, nbf, iat, sub, pushIds }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // `aud` is one string or a list of them (RFC 7519 §4.1.3).
        if let audience = try? c.decodeIfPresent(String.self, forKey: .aud) { audiences = [audience] } else { audiences = try c.decodeIfPresent([String].self, forKey: .aud) }
        expiresAt = try c.decodeIfPresent(Double.self, forKey: .exp)
        notBefore = try c.decodeIfPresent(Double.self, forKey: .nbf)
        issuedAt = try c.decodeIfPresent(Double.self, forKey: .iat)
        subject = try c.decodeIfPresent(String.self, forKey: .sub)
        pushIds = try c.decodeIfPresent([String].self, forKey: .pushIds)
    }

    init(reading json: inout JSONReader) throws {
        var seen = Set<String>()
        try json.object { key, reader in
            guard seen.insert(key).inserted else { throw JSONReader.Mismatch() }
            switch key {
            case "aud":
                var single = reader
                if let audience = try? single.string() { reader = single; audiences = [audience] } else { audiences = try reader.strings() }
            case "exp": expiresAt = Double(try reader.int())
            case "nbf": notBefore = Double(try reader.int())
            case "iat": issuedAt = Double(try reader.int())
            case "sub": subject = try reader.string()
            case "pushIds": pushIds = try reader.strings()
            default: try reader.skip()
            }
        }
    }
}
