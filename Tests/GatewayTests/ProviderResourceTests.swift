import Foundation
import Gateway
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import Testing

/// A provider serves documents to an app's clients through the gateway
/// (`ProviderDescriptor.resources`, e.g. Web Push's `vapid-public-key`), each at its own path
/// `GET /v1/apps/{app}/<platform>/<name>`, from the app's settings for it.
@Suite("A provider's documents for the app's clients", .needs(.broker))
struct ProviderResourceTests {
    struct Lighthouse: ProviderSettings {
        static let key = "lighthouse"
        var beam: String
    }

    /// A provider with one document: the beam its app's settings name.
    struct LighthouseProvider: ConfiguredProvider {
        typealias Settings = Lighthouse
        let platform: Platform = "lighthouse"
        let registersDevices = true
        var resources: [ProviderResource] {
            [ProviderResource(name: "beam-color", summary: "the colour of the app's beam", fields: ["color": "the beam's colour"]) { app, configuration in
                try configuration.settings(Lighthouse.self, app: app).map { ["color": $0.beam] }
            }]
        }
    }

    static let registry = ProviderRegistry.herald.adding([LighthouseProvider()])

    @Test func theDocumentIsServedAtItsOwnPathFromTheAppsSettings() async throws {
        let gateway = try await GatewayFixture(providers: Self.registry, extraAppSettings: "lighthouse: { beam: amber }")
        defer { Task { await gateway.stop() } }
        let answer = await gateway.send("GET", "/v1/apps/{app}/lighthouse/beam-color")
        #expect(answer.status == 200 && answer.json["color"] as? String == "amber", "\(answer.status) \(answer.json)")
        let post = await gateway.send("POST", "/v1/apps/{app}/lighthouse/beam-color", json: [String: String]())
        #expect(post.status == 405)
        let other = await gateway.send("GET", "/v1/apps/{app}/lighthouse/fog-horn")
        #expect(other.status == 404)
        await gateway.stop()
    }

    @Test func anAppWithoutTheProvidersSettingsIsAnswered404SayingSo() async throws {
        let gateway = try await GatewayFixture(providers: Self.registry)
        defer { Task { await gateway.stop() } }
        let answer = await gateway.send("GET", "/v1/apps/{app}/lighthouse/beam-color")
        #expect(answer.status == 404 && "\(answer.json["detail"] ?? "")".contains("no lighthouse settings"), "\(answer.json)")
        await gateway.stop()
    }
}
