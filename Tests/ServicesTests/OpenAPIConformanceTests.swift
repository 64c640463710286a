import Foundation
import HeraldTestSupport
import Testing

/// The gateway and its own OpenAPI document agree, as Schemathesis (an independent tool from
/// PyPI) judges them: every operation, every check, on the whole pipeline (so commands and
/// events are really handled). What the configuration pins, and why, is in
/// `Tests/Interop/schemathesis.toml`.
extension ServiceProcesses {
    @Suite("The gateway's OpenAPI document", .enabled(if: PythonChecker.shouldRun))
    struct OpenAPIConformanceTests {
        @Test func schemathesisFindsNoDisagreementBetweenTheDocumentAndTheGateway() async throws {
            let python = try #require(PythonChecker.python, "no Python with the interop packages: run scripts/test")
            let schemathesis = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("schemathesis").path
            let template = PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/schemathesis.toml")
            let stack = try await HeraldStack.start()
            do {
                // The configuration with this stack's app in place of ${HERALD_APP}.
                let config = stack.sandbox.directory.appendingPathComponent("schemathesis.toml")
                try String(contentsOf: template, encoding: .utf8).replacingOccurrences(of: "${HERALD_APP}", with: stack.app)
                    .write(to: config, atomically: true, encoding: .utf8)
                let seed = ProcessInfo.processInfo.environment["HERALD_SCHEMATHESIS_SEED"] ?? "1"
                let (status, output) = try await runCommand(schemathesis, [
                    "--config-file", config.path, "run", "http://127.0.0.1:\(stack.gateway.port)/openapi.yaml",
                    "--checks", "all", "--seed", seed, "--no-color", "-H", "Authorization: Bearer \(stack.key)",
                ])
                let summary = output.split(separator: "\n").suffix(30).joined(separator: "\n")
                #expect(status == 0, "Schemathesis found disagreements (seed \(seed)):\n\(output.count > 20_000 ? String(output.suffix(20_000)) : output)")
                // It must really have run: every operation of the document tested, cases generated.
                let selected = summary.firstMatch(of: #/Selected: (\d+)\/(\d+)/#)
                #expect(selected != nil && selected?.1 == selected?.2 && summary.contains("Tested: \(selected?.1 ?? "-")"), "\(summary)")
                #expect(summary.firstMatch(of: #/[1-9][0-9]+ generated/#) != nil, "\(summary)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
