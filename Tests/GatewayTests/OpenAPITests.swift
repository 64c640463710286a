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
}
