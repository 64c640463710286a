import APNs
import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import ProviderSandbox
import Testing
import APNsEmulation

/// The sandbox's APNs emulator answers as Apple does, by the word of an outside client:
/// aioapns (PyPI) signs its own ES256 provider tokens with the sandbox's demo `.p8`, speaks
/// HTTP/2 over TLS, and reads the answers. The dispatcher is tested against this emulator,
/// so both follow the same table.
@Suite("aioapns against the sandbox's APNs", .needs(.python))
struct APNsClientInteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interop/aioapns_client.py").path

    func send(_ sandbox: TestSandbox, tokens: [String], keyFile: String? = nil) async throws -> [[String: Any]] {
        let reply = try await PythonChecker.run(Self.script, [
            "host": "localhost", "port": sandbox.running.httpsPort, "caFile": sandbox.caFile,
            "keyFile": keyFile ?? sandbox.apnsKeyFile, "keyId": sandbox.apnsKey.keyId, "teamId": sandbox.apnsKey.teamId,
            "topic": APNsEmulator.demoTopic, "tokens": tokens,
        ])
        return reply["results"] as? [[String: Any]] ?? []
    }

    @Test func aGoodTokenIsAcceptedADeadOneIsGoneWithATimestampABadOneRefused() async throws {
        let sandbox = try await TestSandbox.start()
        let good = TestSandbox.apnsToken()
        let dead = TestSandbox.apnsToken(rule: "unregistered-")
        let bad = "not-a-device-token"
        let results = try await send(sandbox, tokens: [good, dead, bad])
        #expect(results.count == 3, "\(results)")
        #expect(results.first?["status"] as? Int == 200, "\(results)")
        #expect(results.dropFirst().first?["status"] as? Int == 410, "\(results)")
        #expect(results.dropFirst().first?["reason"] as? String == "Unregistered", "\(results)")
        let timestamp = (results.dropFirst().first?["timestamp"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(timestamp / 1000 - Date().timeIntervalSince1970) < 120, "the 410's timestamp is milliseconds of now: \(results)")
        #expect(results.last?["status"] as? Int == 400, "\(results)")
        #expect(results.last?["reason"] as? String == "BadDeviceToken", "\(results)")
        let inbox = sandbox.state.messages(provider: "apns")
        #expect(inbox.map(\.token) == [good])
        #expect(inbox.first?.headers?["apns-push-type"] == "alert")
        #expect(inbox.first?.headers?["apns-priority"] == "10")
        #expect(inbox.first?.headers?["apns-collapse-id"] == "greeting")
        #expect(inbox.first?.app == APNsEmulator.demoTopic)
        #expect(inbox.first?.eventId == "aioapns-1")
        await sandbox.stop()
    }

    @Test func aProviderTokenSignedByAnotherKeyIsRefused() async throws {
        let sandbox = try await TestSandbox.start()
        let other = sandbox.directory.appendingPathComponent("other.p8")
        try Data(TestKeys.otherP256PEM.utf8).write(to: other)
        let results = try await send(sandbox, tokens: [TestSandbox.apnsToken()], keyFile: other.path)
        #expect(results.first?["status"] as? Int == 403, "\(results)")
        #expect(results.first?["reason"] as? String == "InvalidProviderToken", "\(results)")
        #expect(sandbox.state.messages(provider: "apns").isEmpty)
        await sandbox.stop()
    }
}
