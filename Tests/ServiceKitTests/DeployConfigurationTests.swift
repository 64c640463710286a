import FCM
import Foundation
import HeraldDomain
import HeraldTestSupport
import HMS
import ServiceKit
import Testing

/// The compose stack's apps file (`deploy/herald.yaml`) is read the way every service reads it.
struct DeployConfigurationTests {
    @Test func theComposeStacksAppsFileConfiguresTheDemoAppsForFCMPushKitAndWebhooks() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/herald.yaml").standardizedFileURL
        let apps = try AppsConfiguration.parse(String(contentsOf: file, encoding: .utf8), relativeTo: file.deletingLastPathComponent())
        let demo = try #require(apps.apps["demo"])
        let fcm = try #require(try demo.settings(FCMSettings.self, app: "demo"))
        let hms = try #require(try demo.settings(HMSSettings.self, app: "demo"))
        #expect(fcm.endpoint == "https://herald-sandbox:8443")
        #expect(hms.appId == "100000001" && hms.clientSecretFile == "/var/lib/herald-sandbox/hms-client-secret")
        #expect(hms.tokenEndpoint == "https://herald-sandbox:8443/oauth2/v3/token")
        #expect(demo.delivery.mode == .direct && demo.delivery.url == nil, "a direct app's Evernym sponsees are pushed, not forwarded")
        let chat = try #require(apps.apps["demo-chat"])
        #expect(chat.delivery.mode == .webhook && chat.delivery.allowPrivateNetworks)
        // The keys and secrets the file names are made by the stack on its first start, never committed.
        #expect(chat.delivery.signingSecretFile?.hasSuffix("secrets/demo-webhook-secret") == true)
        for name in ["demo-api-key", "demo-chat-api-key", "demo-webhook-secret", "amqp-password", "grafana-admin-password", "postgres-password"] {
            #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().appendingPathComponent("secrets/\(name)").path), "\(name) is committed")
        }
    }

    @Test func theStacksSecretsAreMadeOnceAtRandomAndTheBrokerGetsTheSamePassword() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/make-secrets.sh").standardizedFileURL.path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-secrets-\(UUID().uuidString)")
        let secrets = directory.appendingPathComponent("secrets"), broker = directory.appendingPathComponent("rabbitmq")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: broker, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func read(_ name: String) throws -> String { try String(contentsOf: secrets.appendingPathComponent(name), encoding: .utf8) }
        let (status, output) = try await runCommand("sh", [script, secrets.path, broker.path])
        #expect(status == 0, "\(output)")
        #expect(!output.contains(try read("demo-api-key")), "no secret is printed")
        let password = try read("amqp-password")
        #expect(password.count == 64 && password.allSatisfy(\.isHexDigit))
        #expect(try read("demo-api-key").count == 64 && read("demo-api-key") != read("demo-chat-api-key"))
        #expect(try read("demo-webhook-secret").hasPrefix("whsec_"))
        for variant in ["single", "cluster"] {
            let brokerConfig = try String(contentsOf: broker.appendingPathComponent("\(variant)/20-herald.conf"), encoding: .utf8)
            #expect(brokerConfig.contains("default_user = herald\ndefault_pass = \(password)\n"), "\(variant)")
        }
        // The scale profile: the cluster's nodes find each other and share a cookie; PostgreSQL has its own password.
        let cluster = try String(contentsOf: broker.appendingPathComponent("cluster/30-cluster.conf"), encoding: .utf8)
        #expect(["rabbit@rabbitmq", "rabbit@rabbitmq-2", "rabbit@rabbitmq-3"].allSatisfy { cluster.contains($0) })
        #expect(!FileManager.default.fileExists(atPath: broker.appendingPathComponent("single/30-cluster.conf").path), "one node alone looks for no peers")
        let cookie = try String(contentsOf: broker.appendingPathComponent("erlang-cookie"), encoding: .utf8)
        #expect(cookie.count == 64 && cookie != password)
        #expect(try read("postgres-password").count == 64 && read("postgres-password") != password)
        #expect(try read("grafana-admin-password").count == 64 && read("grafana-admin-password") != password)
        let plugins = try String(contentsOf: broker.appendingPathComponent("enabled_plugins"), encoding: .utf8)
        #expect(plugins == "[rabbitmq_management,rabbitmq_prometheus].\n", "the management API and the Prometheus endpoint the dashboards scrape")
        // A second start keeps them.
        let key = try read("demo-api-key")
        #expect(try await runCommand("sh", [script, secrets.path, broker.path]).status == 0)
        #expect(try read("demo-api-key") == key && read("amqp-password") == password)
        #expect(try String(contentsOf: broker.appendingPathComponent("erlang-cookie"), encoding: .utf8) == cookie, "the cluster keeps its cookie")
    }
}
