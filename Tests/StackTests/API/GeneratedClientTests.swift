import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// A client generated from the gateway's OpenAPI document by `openapi-python-client` (from
/// PyPI) drives the real executables: the document is enough to integrate with Herald.
extension ServiceProcesses {
    @Suite("A client generated from the OpenAPI document", .needs(.python))
    struct GeneratedClientTests {
        @Test func aGeneratedPythonClientRegistersSendsAndFindsWhatBecameOfIt() async throws {
            let python = try #require(PythonChecker.python, "no Python with the interop packages: run scripts/test")
            let generator = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("openapi-python-client").path
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0)
            do {
                let directory = stack.sandbox.directory.appendingPathComponent("generated")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let (generated, log) = try await runCommand(generator, [
                    "generate", "--url", "http://127.0.0.1:\(stack.gateway.port)/openapi.yaml",
                    "--output-path", directory.appendingPathComponent("herald_client").path, "--meta", "none",
                ])
                #expect(generated == 0, "openapi-python-client: \(log)")
                let script = PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/generated_client.py").path
                let (status, output) = try await runCommand(python, [script, directory.path, "http://127.0.0.1:\(stack.gateway.port)", stack.app, stack.key])
                #expect(status == 0, "\(output)")
                let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(output)")
                let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let token = try #require(seen["token"] as? String)
                #expect(seen["eventStatus"] as? String == "delivered" && seen["deliveries"] as? Int == 1 && seen["delivered"] as? Int == 1, "\(seen)")
                #expect(seen["deviceId"] as? String == "py-phone" && seen["lastOutcome"] as? String == "delivered", "\(seen)")
                #expect(seen["registeredToken"] as? String == TokenMask.masked(token) && seen["deviceToken"] as? String == TokenMask.masked(token), "\(seen)")
                #expect((seen["statsDelivered"] as? Int ?? 0) >= 1, "\(seen)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
