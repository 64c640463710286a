import APNs
import Foundation
import HeraldDomain
import HeraldEmulators
import HeraldModel
import HeraldProviders
import ProviderSandbox
import HeraldTestSupport
import APNsEmulation

/// A provider sandbox started in this process (HTTPS with HTTP/2 on a free port), with its
/// demo FCM service account and CA written to a temporary folder.
public struct TestSandbox: Sendable {
    public let running: RunningSandbox
    public let directory: URL

    public static func start(tokenLifetime: TimeInterval = 3600) async throws -> TestSandbox {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let running = try await RunningSandbox.start(configuration: SandboxConfiguration(
            httpsPort: 0, httpsHost: "127.0.0.1", directory: directory, tokenLifetime: tokenLifetime))
        return TestSandbox(running: running, directory: directory)
    }

    public func stop() async {
        await running.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public var state: SandboxState { running.sandbox.state }
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// How long a test's client waits to connect (TLS included): the sandbox answers on the
    /// threads every test shares, which the whole suite keeps busy at its start.
    public static let connectTimeout: Duration = .seconds(30)
    public var endpoint: String { "https://localhost:\(running.httpsPort)" }
    public var serviceAccountFile: String { directory.appendingPathComponent("fcm-service-account.json").path }

    /// The demo APNs signing key's `.p8` file, and its team and key ids.
    public var apnsKeyFile: String { directory.appendingPathComponent("apns-key.p8").path }
    public var apnsKey: APNsEmulator.SigningKey { running.sandbox.emulator(APNsEmulator.self)!.demoKey! }
    /// The topic `apnsSection` writes by default.
    public var apnsTopic: String { APNsEmulator.demoTopic }

    /// An app's `apns` section (YAML, indented for an app) sending to this sandbox.
    public func apnsSection(topic: String = APNsEmulator.demoTopic, environment: String = "development", indent: String = "    ") -> String {
        """
        \(indent)apns:
        \(indent)  teamId: \(apnsKey.teamId)
        \(indent)  keyId: \(apnsKey.keyId)
        \(indent)  keyFile: \(apnsKeyFile)
        \(indent)  topic: \(topic)
        \(indent)  environment: \(environment)
        \(indent)  endpoint: \(endpoint)
        \(indent)  caFile: \(caFile)
        """
    }

    /// An app's section for `platform` (YAML, indented for an app) sending to this sandbox, as
    /// its emulator declares for the demo app; nil when the sandbox emulates no such provider.
    public func settingsSection(_ platform: Platform, emulated: [any EmulatedProvider] = HeraldEmulators.all, indent: String = "    ") -> String? {
        guard let emulated = emulated.first(where: { $0.platform == platform }) else { return nil }
        var lines = ["\(indent)\(platform.rawValue):"]
        for (key, value) in emulated.demoSettings {
            let text: String
            if let string = value as? String {
                let resolved = string.replacingOccurrences(of: "${sandboxDir}", with: directory.path).replacingOccurrences(of: "${sandboxURL}", with: endpoint)
                text = String(decoding: try! JSONEncoder().encode(resolved), as: UTF8.self)
            } else {
                text = "\(value)"
            }
            lines.append("\(indent)  \(key): \(text)")
        }
        return lines.joined(separator: "\n")
    }

    /// An APNs device token (hex of 32 bytes) whose bytes spell the sandbox rule `rule`.
    public static func apnsToken(rule: String = "", filler: String = UUID().uuidString) -> String {
        APNsEmulator.token(rule: rule, filler: filler)
    }

    /// An apps YAML with app `app` sending to this sandbox's FCM.
    public func writeAppsYAML(app: String = "demo") throws -> String {
        let path = directory.appendingPathComponent("herald.yaml")
        try Data("""
            apps:
              \(app):
                fcm:
                  serviceAccountFile: \(serviceAccountFile)
                  endpoint: \(endpoint)
                  caFile: \(caFile)
            """.utf8).write(to: path)
        return path.path
    }

    /// A dispatch request for `token` of app `demo`.
    public static func request(token: String, app: String = "demo", id: String = UUID().uuidString, expiresAt: Date? = nil) -> DispatchRequest {
        DispatchRequest(
            deliveryId: id, eventId: "e-\(id)", app: app, kind: "test", platform: .fcm, deviceId: "d-\(id)",
            token: token, os: .android, data: ["herald": "1", "event": "e-\(id)"], expiresAt: expiresAt)
    }
}
