import _CryptoExtras
import Crypto
import Foundation
import ProviderEmulation

/// A Google service-account key file, as FCM's OAuth flow uses it. The sandbox accepts JWTs
/// signed by the accounts it knows, and can generate a demo account for local stacks.
public struct ServiceAccount: Codable, Sendable, Hashable {
    public var type: String
    public var projectId: String
    public var privateKeyId: String
    public var privateKey: String
    public var clientEmail: String
    public var clientId: String
    public var tokenUri: String

    enum CodingKeys: String, CodingKey {
        case type
        case projectId = "project_id"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case clientId = "client_id"
        case tokenUri = "token_uri"
    }

    public init(projectId: String, privateKeyId: String, privateKeyPEM: String, clientEmail: String, clientId: String, tokenUri: String) {
        type = "service_account"
        self.projectId = projectId
        self.privateKeyId = privateKeyId
        privateKey = privateKeyPEM
        self.clientEmail = clientEmail
        self.clientId = clientId
        self.tokenUri = tokenUri
    }

    /// A new account with a fresh 2048-bit RSA key, or with `key`.
    public static func generate(projectId: String, tokenUri: String, key: _RSA.Signing.PrivateKey? = nil) throws -> ServiceAccount {
        let key = try key ?? _RSA.Signing.PrivateKey(keySize: .bits2048)
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return ServiceAccount(
            projectId: projectId, privateKeyId: id, privateKeyPEM: key.pemRepresentation,
            clientEmail: "herald@\(projectId).iam.gserviceaccount.com",
            clientId: String(id.prefix(21).unicodeScalars.map { String($0.value % 10) }.joined()),
            tokenUri: tokenUri)
    }

    /// Reads a key file.
    public static func load(from url: URL) throws -> ServiceAccount {
        let data = try Data(contentsOf: url)
        let account = try JSONDecoder().decode(ServiceAccount.self, from: data)
        guard account.type == "service_account" else {
            throw SandboxError("\(url.path): type is \"\(account.type)\", expected service_account")
        }
        return account
    }

    /// The key file's JSON, as Google issues it.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The public half of the account's key: what verifies its JWTs.
    public func publicKey() throws -> _RSA.Signing.PublicKey {
        do {
            return try _RSA.Signing.PrivateKey(pemRepresentation: privateKey).publicKey
        } catch {
            throw SandboxError("service account \(clientEmail): private_key is not an RSA key in PEM: \(error)")
        }
    }
}
