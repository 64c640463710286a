import Gateway
import HeraldDomain
import HeraldModel
import HeraldSources
import Testing

/// A source's routes are its module's: the gateway serves what the registry declares, and
/// its own endpoints name no integration.
@Suite struct SourceEndpointTests {
    static func firstSegment(_ path: String) -> String {
        String(path.dropFirst().prefix { $0 != "/" })
    }

    @Test func heraldsOwnEndpointsNameNoIntegration() {
        // The generic API's route is Herald's own resource (`/events`); every other source's
        // path names its integration.
        let integrations = SourceRegistry.herald.sources.filter { $0.source != .api }
        let segments = Set(integrations.flatMap { $0.routes.map(\.path) + $0.stateRoutes.map(\.path) }.map(Self.firstSegment))
        let named = Endpoint.own.filter { segments.contains(Self.firstSegment($0.route.path)) }.map(\.rawValue)
        #expect(named.isEmpty, "Herald's own endpoints at an integration's path: \(named)")
    }

    @Test func eachStateRouteIsServedWithTheAccessItDeclares() {
        let endpoints = Endpoint.all(.herald)
        #expect(!SourceRegistry.herald.stateRoutes.isEmpty)
        for route in SourceRegistry.herald.stateRoutes {
            let endpoint = endpoints.first { $0.rawValue == route.operation }
            #expect(endpoint?.method == route.method.rawValue, "\(route.operation)")
            #expect(endpoint?.path == "/v1/apps/:app" + route.path, "\(route.operation)")
            #expect(endpoint?.scope == .devices, "\(route.operation)")
            #expect(endpoint?.client == (route.takesClientTokens ? .ownDevices : .refused), "\(route.operation)")
        }
    }

    @Test func aStateRoutesPathParametersAreNamedForOpenAPI() throws {
        let route = try #require(SourceRegistry.herald.stateRoutes.first { $0.path == "/email/addresses/:id/key" })
        #expect(route.parameters == ["id"])
        #expect(route.openAPIPath == "/email/addresses/{id}/key")
    }
}
