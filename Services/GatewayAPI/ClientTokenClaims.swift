import Foundation
import HeraldModel

/// What the gateway reads of a client token's JSON: from the header `alg` and whether there is
/// a `crit`, from the claims `aud`, `exp`, `nbf`, `iat`, `sub` and `pushIds`. Read with
/// `JSONReader` (a token is checked on a request's path, and Foundation's JSON costs more than
/// the HMAC); JSON outside the reader's subset (numbers with fractions, repeated members) is
/// read again with `JSONSerialization`, which decides.
struct ClientTokenClaims {
    struct Header {
        var algorithm: String?
        var critical = false
    }

    /// A claim present with a value of the wrong type.
    struct WrongType: Error {
        var claim: String
    }

    var audiences: [String]?
    var expiresAt: Double?
    var notBefore: Double?
    var issuedAt: Double?
    var subject: String?
    var pushIds: [String]?

    /// The header; nil when it is not a JSON object.
    static func header(_ json: Data) -> Header? {
        if let header = JSONReader.read(json, { reader -> Header in
            var header = Header()
            var seen = Set<String>()
            try reader.object { key, reader in
                guard seen.insert(key).inserted else { throw JSONReader.Mismatch() }
                switch key {
                case "alg": header.algorithm = try reader.string()
                case "crit": header.critical = true; try reader.skip()
                default: try reader.skip()
                }
            }
            return header
        }) { return header }
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return nil }
        return Header(algorithm: object["alg"] as? String, critical: object["crit"] != nil)
    }

    /// The claims; nil when they are not a JSON object; `WrongType` for a known claim of another type.
    static func claims(_ json: Data) throws(WrongType) -> ClientTokenClaims? {
        if let claims = JSONReader.read(json, { reader -> ClientTokenClaims in
            var claims = ClientTokenClaims()
            var seen = Set<String>()
            try reader.object { key, reader in
                guard seen.insert(key).inserted else { throw JSONReader.Mismatch() }
                switch key {
                case "aud":
                    var single = reader
                    if let audience = try? single.string() { reader = single; claims.audiences = [audience] } else { claims.audiences = try reader.strings() }
                case "exp": claims.expiresAt = Double(try reader.int())
                case "nbf": claims.notBefore = Double(try reader.int())
                case "iat": claims.issuedAt = Double(try reader.int())
                case "sub": claims.subject = try reader.string()
                case "pushIds": claims.pushIds = try reader.strings()
                default: try reader.skip()
                }
            }
            return claims
        }) { return claims }
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return nil }
        func number(_ claim: String) throws(WrongType) -> Double? {
            guard let value = object[claim] else { return nil }
            guard let double = (value as? NSNumber)?.doubleValue, double.isFinite else { throw WrongType(claim: claim) }
            return double
        }
        func strings(_ claim: String) throws(WrongType) -> [String]? {
            guard let value = object[claim] else { return nil }
            guard let list = value as? [Any] else { throw WrongType(claim: claim) }
            let strings = list.compactMap { $0 as? String }
            guard strings.count == list.count else { throw WrongType(claim: claim) }
            return strings
        }
        var claims = ClientTokenClaims()
        if let audience = object["aud"] as? String { claims.audiences = [audience] } else { claims.audiences = try strings("aud") }
        claims.expiresAt = try number("exp")
        claims.notBefore = try number("nbf")
        claims.issuedAt = try number("iat")
        if let subject = object["sub"] {
            guard let text = subject as? String else { throw WrongType(claim: "sub") }
            claims.subject = text
        }
        claims.pushIds = try strings("pushIds")
        return claims
    }
}
