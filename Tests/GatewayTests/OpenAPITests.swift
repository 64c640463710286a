import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import Gateway
import HeraldDomain
import HeraldProviders
import HeraldSources
import Testing
import Yams

/// The OpenAPI document and the router list the same routes.
struct OpenAPITests {
    static func documented() throws -> Set<String> {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        #expect(root["openapi"] as? String == "3.1.0")
        let paths = try #require(root["paths"] as? [String: Any])
        var routes = Set<String>()
        for (path, item) in paths {
            for method in ((item as? [String: Any]) ?? [:]).keys where ["get", "put", "post", "delete", "patch"].contains(method) {
                routes.insert("\(method.uppercased()) \(path)")
            }
        }
        return routes
    }

    /// Every route the router serves for Herald's registry (a provider resource at its own path).
    static var served: Set<String> {
        Set((GatewayRoutes.routes(Endpoint.all(.herald), providers: .herald).map { ($0.endpoint, $0.path) } + GatewayRoutes.ingestRoutes(Endpoint.all(.herald))).map { endpoint, path in
            let path = path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return "\(endpoint.method) /\(path)"
        })
    }

    /// Each ingest URL's operation takes no credential but its path's secret, and names the
    /// endpoint it stands for.
    @Test func eachIngestOperationTakesNoCredentialButItsSecret() throws {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        for (endpoint, path) in GatewayRoutes.ingestRoutes(Endpoint.all(.herald)) {
            let documented = "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let operation = try #require((paths[documented] as? [String: Any])?["post"] as? [String: Any], "\(documented)")
            #expect((operation["security"] as? [[String: Any]])?.flatMap(\.keys).isEmpty == true, "\(documented)")
            #expect(operation["operationId"] as? String == "ingest" + endpoint.rawValue.prefix(1).uppercased() + endpoint.rawValue.dropFirst(), "\(documented)")
        }
    }

    @Test func everyServedRouteIsDocumented() throws {
        let missing = Self.served.subtracting(try Self.documented())
        #expect(missing.isEmpty, "not in openapi.yaml: \(missing.sorted())")
    }

    @Test func everyDocumentedRouteIsServed() throws {
        let extra = try Self.documented().subtracting(Self.served)
        #expect(extra.isEmpty, "documented but not served: \(extra.sorted())")
    }

    @Test func eachOperationNamesTheScopeTheRouterChecks() throws {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        for endpoint in Endpoint.all(.herald) where endpoint != .getProviderResource {
            let path = "/" + endpoint.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let operation = ((paths[path] as? [String: Any])?[endpoint.method.lowercased()] as? [String: Any])
            #expect(operation?["x-herald-scope"] as? String == endpoint.scope.rawValue, "\(endpoint.method) \(path)")
        }
    }

    /// Each operation declares its security schemes: an API key always, a client token where
    /// the router lets one in, with what it may touch (`x-herald-client`).
    @Test func eachOperationDeclaresTheCredentialsTheRouterTakes() throws {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        let schemes = try #require(((root["components"] as? [String: Any])?["securitySchemes"] as? [String: Any]))
        #expect(Set(schemes.keys) == ["apiKey", "clientToken"])
        for endpoint in Endpoint.all(.herald) where endpoint != .getProviderResource {
            let path = "/" + endpoint.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let operation = try #require((paths[path] as? [String: Any])?[endpoint.method.lowercased()] as? [String: Any], "\(endpoint)")
            let security = try #require(operation["security"] as? [[String: Any]], "\(endpoint) declares no security")
            let declared = Set(security.flatMap(\.keys))
            // A request proven by a device's push token carries no credential: `[{}]`.
            let expected: Set<String> = endpoint.provenByPushToken ? [] : endpoint.client == .refused ? ["apiKey"] : ["apiKey", "clientToken"]
            #expect(declared == expected, "\(endpoint.method) \(path): \(declared.sorted())")
            #expect(operation["x-herald-client"] as? String == (endpoint.client == .refused ? nil : endpoint.client.rawValue), "\(endpoint.method) \(path)")
        }
    }

    /// A generated client names each call after the router's endpoint and knows what it answers.
    @Test func eachOperationHasTheEndpointsNameAndATypedReply() throws {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        let components = try #require(root["components"] as? [String: Any])
        for endpoint in Endpoint.all(.herald) where endpoint != .getProviderResource {
            let path = "/" + endpoint.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let operation = try #require((paths[path] as? [String: Any])?[endpoint.method.lowercased()] as? [String: Any], "\(endpoint)")
            #expect(operation["operationId"] as? String == endpoint.rawValue)
            let responses = try #require(operation["responses"] as? [String: Any])
            let success = try #require(responses.first { $0.key.hasPrefix("2") }?.value as? [String: Any], "\(endpoint)")
            // Follow a response reference to its definition, then to its schema.
            var response = success
            if let reference = success["$ref"] as? String {
                response = try #require((components["responses"] as? [String: Any])?[String(reference.split(separator: "/").last!)] as? [String: Any])
            }
            let schema = try #require((((response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]) as? [String: Any], "\(endpoint)")
            var resolved = schema
            if let reference = schema["$ref"] as? String {
                resolved = try #require((components["schemas"] as? [String: Any])?[String(reference.split(separator: "/").last!)] as? [String: Any])
            }
            #expect(resolved["properties"] != nil, "\(endpoint) answers an untyped object")
        }
    }

    /// The pattern of a schema property in the document, found by the property's name.
    static func pattern(_ property: String) throws -> NSRegularExpression {
        let yaml = OpenAPIDocument.yaml
        let line = try #require(yaml.split(separator: "\n").first { $0.contains("\(property): { type: string") && $0.contains("pattern:") }, "\(property)")
        let quoted = try #require(line.range(of: "pattern: '")).upperBound
        let end = try #require(line[quoted...].firstIndex(of: "'"))
        return try NSRegularExpression(pattern: String(line[quoted..<end]))
    }

    static func matches(_ pattern: NSRegularExpression, _ text: String) -> Bool {
        pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// What a generated client sends for a key is of the form Herald reads: real keys match,
    /// what is not base64url, PEM or DER does not.
    @Test func theKeyPatternsAdmitRealKeysAndNothingOfAnotherForm() throws {
        let p256dh = try Self.pattern("p256dh"), auth = try Self.pattern("auth"), publicKey = try Self.pattern("publicKey")
        for _ in 0..<50 {
            let key = P256.KeyAgreement.PrivateKey().publicKey
            #expect(Self.matches(p256dh, Base64URL.encode(key.x963Representation)))
            #expect(Self.matches(p256dh, Base64URL.encode(key.compressedRepresentation)))
            #expect(Self.matches(auth, Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) })))
        }
        #expect(!Self.matches(p256dh, Base64URL.encode(P384.KeyAgreement.PrivateKey().publicKey.x963Representation)))
        #expect(!Self.matches(auth, Base64URL.encode(Data(repeating: 1, count: 15))) && !Self.matches(auth, "AAAAAAAAAAAAAAAAAAAA+A"))
        let rsa = try _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey
        #expect(Self.matches(publicKey, rsa.pemRepresentation))
        #expect(Self.matches(publicKey, rsa.pkcs1PEMRepresentation))
        #expect(Self.matches(publicKey, rsa.derRepresentation.base64EncodedString()))
        #expect(!Self.matches(publicKey, "not a key") && !Self.matches(publicKey, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"))
        // Every key the pattern admits is read by Herald's parser, or refused as unusable (422).
        #expect(throws: Never.self) { try RSAEncryptionKey(rsa.pemRepresentation) }
        #expect(throws: Never.self) { try RSAEncryptionKey(rsa.derRepresentation.base64EncodedString()) }
    }
}
