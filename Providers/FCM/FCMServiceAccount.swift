import Foundation
import ServiceKit

/// The fields of a Google service-account JSON file that FCM's OAuth needs.
public struct FCMServiceAccount: Decodable, Sendable, Hashable {
    public var projectId: String
    public var privateKeyId: String
    public var privateKey: String
    public var clientEmail: String
    /// Where to exchange the signed JWT for an access token (the sandbox's, or Google's).
    public var tokenUri: String

    enum CodingKeys: String, CodingKey {
        case type, projectId = "project_id", privateKeyId = "private_key_id", privateKey = "private_key"
        case clientEmail = "client_email", tokenUri = "token_uri"
    }

    public init(projectId: String, privateKeyId: String, privateKey: String, clientEmail: String, tokenUri: String) {
        self.projectId = projectId
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.tokenUri = tokenUri
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decodeIfPresent(String.self, forKey: .type)
        guard type == nil || type == "service_account" else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "must be service_account, found \(type!)")
        }
        projectId = try c.decode(String.self, forKey: .projectId)
        privateKeyId = try c.decode(String.self, forKey: .privateKeyId)
        privateKey = try c.decode(String.self, forKey: .privateKey)
        clientEmail = try c.decode(String.self, forKey: .clientEmail)
        tokenUri = try c.decode(String.self, forKey: .tokenUri)
    }

    /// Reads and checks the file at `path`; throws `ConfigurationError` naming `setting`.
    public static func load(path: String, setting: String = "fcm.serviceAccountFile") throws -> FCMServiceAccount {
        let data = try SecretFile.data(path, setting: setting)
        do {
            return try JSONDecoder().decode(FCMServiceAccount.self, from: data)
        } catch {
            throw ConfigurationError(.invalidFile, setting: setting, "\(path) is not a service-account JSON file: \(Self.describe(error))")
        }
    }

    /// Where a decoding error is, without quoting the file (it holds a private key).
    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "not JSON" : "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "unreadable"
        }
    }
}

/// An FCM setting that cannot work (a private key that is not RSA in PEM).
public struct FCMConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
