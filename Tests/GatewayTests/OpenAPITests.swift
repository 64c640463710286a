import Foundation
import GatewayAPI
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

    static var served: Set<String> {
        Set(Endpoint.allCases.map { endpoint in
            let path = endpoint.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return "\(endpoint.method) /\(path)"
        })
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
        for endpoint in Endpoint.allCases {
            let path = "/" + endpoint.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let operation = ((paths[path] as? [String: Any])?[endpoint.method.lowercased()] as? [String: Any])
            #expect(operation?["x-herald-scope"] as? String == endpoint.scope.rawValue, "\(endpoint.method) \(path)")
        }
    }

    /// A generated client names each call after the router's endpoint and knows what it answers.
    @Test func eachOperationHasTheEndpointsNameAndATypedReply() throws {
        let root = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        let components = try #require(root["components"] as? [String: Any])
        for endpoint in Endpoint.allCases {
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
}
