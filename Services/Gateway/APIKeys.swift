import Crypto
import Foundation
import HeraldDomain
import ServiceKit

/// The apps' API keys, kept as SHA-256 digests: a request's Bearer key is hashed and
/// compared with every digest in constant time, so neither the keys nor timing tell
/// anything. Keys given by file are read and hashed at start.
public struct APIKeys: Sendable {
    public typealias Scope = AppConfiguration.Scope

    struct Entry: Sendable {
        var app: String
        var id: String
        var digest: [UInt8]
        var scopes: Set<Scope>
    }

    let entries: [Entry]

    public init(apps: AppsConfiguration) throws {
        var entries: [Entry] = []
        for (app, configuration) in apps.apps.sorted(by: { $0.key < $1.key }) {
            for key in configuration.apiKeys {
                let digest: [UInt8]
                if let hex = key.sha256 {
                    digest = stride(from: 0, to: hex.count, by: 2).map { offset in
                        let start = hex.index(hex.startIndex, offsetBy: offset)
                        return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
                    }
                } else if let file = key.file {
                    let secret = try SecretFile.text(file, setting: "apps.\(app).apiKeys.\(key.id).file")
                    digest = Array(SHA256.hash(data: Data(secret.utf8)))
                } else {
                    continue
                }
                entries.append(Entry(app: app, id: key.id, digest: digest, scopes: Set(key.scopes ?? AppConfiguration.APIKey.defaultScopes)))
            }
        }
        self.entries = entries
    }

    /// Checks the key whose SHA-256 is `digest` for `scope` on `app` and answers its id; nil
    /// when no key has that digest. 403 for a key of another app or without the scope; the
    /// `console` scope is held by a key with that scope or with `admin`.
    func authorize(digest: [UInt8], app: String, scope: Scope) throws(GatewayError) -> String? {
        var match: Entry?
        for entry in entries where Self.constantTimeEqual(entry.digest, digest) { match = entry }
        guard let match else { return nil }
        guard match.app == app else { throw GatewayError(403, "Forbidden", "this API key belongs to another app") }
        // The console acts for an operator: a `console` key, or an `admin` one, may sign in.
        guard match.scopes.contains(scope) || (scope == .console && match.scopes.contains(.admin)) else {
            throw GatewayError(403, "Forbidden", "API key \(match.id) lacks the \(scope.rawValue) scope")
        }
        return match.id
    }

    /// The credential of an `Authorization: Bearer <credential>` header and its SHA-256: the
    /// scheme case-insensitive, spaces around the credential ignored; read on the UTF-8
    /// bytes, without copying the header into new strings.
    static func bearer(_ header: String) -> (credential: Substring, digest: [UInt8])? {
        let bytes = header.utf8
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }) else { return nil }
        var start = bytes.index(bytes.startIndex, offsetBy: scheme.count)
        var end = bytes.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        guard start < end else { return nil }
        let credential = Substring(header.utf8[start..<end])
        var hash = SHA256()
        credential.utf8.withContiguousStorageIfAvailable { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) } ?? hash.update(data: Data(credential.utf8))
        return (credential, Array(hash.finalize()))
    }

    static func bearerDigest(_ header: String) -> [UInt8]? { bearer(header)?.digest }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
