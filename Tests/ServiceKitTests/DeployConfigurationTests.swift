import Foundation
import ServiceKit
import Testing

/// The compose stack's apps file (`deploy/herald.yaml`) is read the way every service reads it.
struct DeployConfigurationTests {
    @Test func theComposeStacksAppsFileConfiguresTheDemoAppForFCMAndPushKit() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/herald.yaml").standardizedFileURL
        let apps = try AppsConfiguration.parse(String(contentsOf: file, encoding: .utf8), relativeTo: file.deletingLastPathComponent())
        let demo = try #require(apps.apps["demo"])
        #expect(demo.fcm?.endpoint == "https://herald-sandbox:8443")
        #expect(demo.hms?.appId == "100000001" && demo.hms?.clientSecretFile == "/var/lib/herald/sandbox/hms-client-secret")
        #expect(demo.hms?.tokenEndpoint == "https://herald-sandbox:8443/oauth2/v3/token")
    }
}
