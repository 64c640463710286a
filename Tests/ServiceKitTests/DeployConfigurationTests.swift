import Foundation
import ServiceKit
import Testing

/// The compose stack's apps file (`deploy/herald.yaml`) is read the way every service reads it.
struct DeployConfigurationTests {
    @Test func theComposeStacksAppsFileConfiguresTheDemoAppsForFCMPushKitAndWebhooks() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/herald.yaml").standardizedFileURL
        let apps = try AppsConfiguration.parse(String(contentsOf: file, encoding: .utf8), relativeTo: file.deletingLastPathComponent())
        let demo = try #require(apps.apps["demo"])
        #expect(demo.fcm?.endpoint == "https://herald-sandbox:8443")
        #expect(demo.hms?.appId == "100000001" && demo.hms?.clientSecretFile == "/var/lib/herald/sandbox/hms-client-secret")
        #expect(demo.hms?.tokenEndpoint == "https://herald-sandbox:8443/oauth2/v3/token")
        #expect(demo.delivery.mode == .direct && demo.delivery.url == "http://herald-sandbox:8090/webhooks/demo-sponsor")
        let chat = try #require(apps.apps["demo-chat"])
        #expect(chat.delivery.mode == .webhook && chat.delivery.allowPrivateNetworks)
        let secret = try String(contentsOfFile: try #require(chat.delivery.signingSecretFile), encoding: .utf8)
        #expect(secret.hasPrefix("whsec_"), "the demo secret file holds a Standard Webhooks secret")
    }
}
