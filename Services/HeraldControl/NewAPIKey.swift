import Crypto
import Foundation
import HeraldDomain

/// A new API key for the apps file (`heraldctl keys new`): 32 random bytes from the system's
/// CSPRNG as base64url, and the `apiKeys` line that holds only its SHA-256, so the key itself
/// is given to its user and never written into the file.
public struct NewAPIKey: Sendable {
    public let id: String
    public let key: String
    public let scopes: [AppConfiguration.Scope]

    /// `id` names the key in the file and the logs; `scopes` as the file takes them.
    public init(id: String, scopes: [AppConfiguration.Scope]) throws(ControlError) {
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw ControlError(.invalidInput, "key id \(id): letters, digits, '-', '_' and '.' only")
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        key = "hk_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        self.id = id
        self.scopes = scopes.isEmpty ? AppConfiguration.APIKey.defaultScopes : scopes
    }

    /// The key's SHA-256 in hex, as the apps file's `sha256` holds it.
    public var sha256: String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The entry for the app's `apiKeys` list.
    public var line: String {
        "- { id: \(id), sha256: \(sha256), scopes: [\(scopes.map(\.rawValue).joined(separator: ", "))] }"
    }
}
