import Foundation
import Gateway
import HeraldSources
import HeraldTestSupport
import Testing

/// The gateway and its own OpenAPI document agree, as Schemathesis (an independent tool from
/// PyPI) judges them: every operation, every check, on the whole pipeline (so commands and
/// events are really handled), once with an API key on every operation and once with a
/// device's client token on the operations it may call. What the configuration pins, and
/// why, is in `Tests/Interop/schemathesis.toml`.
extension ServiceProcesses {
    @Suite("The gateway's OpenAPI document", .needs(.python))
    struct OpenAPIConformanceTests {
        @Test func schemathesisFindsNoDisagreementBetweenTheDocumentAndTheGateway() async throws {
            let python = try #require(PythonChecker.python, "no Python with the interop packages: run scripts/test")
            let schemathesis = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("schemathesis").path
            let template = PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/schemathesis.toml")
            let stack = try await HeraldStack.start()
            do {
                let seed = ProcessInfo.processInfo.environment["HERALD_SCHEMATHESIS_SEED"] ?? "1"
                /// Runs Schemathesis with `authorization` on the operations `only` matches (all
                /// without it), `parameters` pinned besides the app; expects every selected
                /// operation tested and no disagreement.
                func run(_ name: String, authorization: String, only: String? = nil, parameters: String = "") async throws {
                    // The configuration with this stack's app in place of ${HERALD_APP}.
                    let config = stack.sandbox.directory.appendingPathComponent("schemathesis-\(name).toml")
                    try String(contentsOf: template, encoding: .utf8)
                        .replacingOccurrences(of: "\"path.app\" = \"${HERALD_APP}\"", with: "\"path.app\" = \"\(stack.app)\"\n\(parameters)")
                        .write(to: config, atomically: true, encoding: .utf8)
                    var arguments = [
                        "--config-file", config.path, "run", "http://127.0.0.1:\(stack.gateway.port)/openapi.yaml",
                        "--checks", "all", "--seed", seed, "--no-color", "-H", "Authorization: Bearer \(authorization)",
                    ]
                    if let only { arguments += ["--include-operation-id-regex", only] }
                    let (status, output) = try await runCommand(schemathesis, arguments)
                    let summary = output.split(separator: "\n").suffix(30).joined(separator: "\n")
                    #expect(status == 0, "Schemathesis with \(name) found disagreements (seed \(seed)):\n\(output.count > 20_000 ? String(output.suffix(20_000)) : output)")
                    // It must really have run: every selected operation tested, cases generated.
                    let selected = summary.firstMatch(of: #/Selected: (\d+)\/(\d+)/#)
                    #expect(selected != nil && summary.contains("Tested: \(selected?.1 ?? "-")"), "\(summary)")
                    if only == nil { #expect(selected?.1 == selected?.2, "\(summary)") }
                    #expect(summary.firstMatch(of: #/[1-9][0-9]+ generated/#) != nil, "\(summary)")
                }
                try await run("api-key", authorization: stack.key)
                // A device's client token (PyJWT's) on the operations it may call, its own user in
                // the path: what it may do succeeds, the rest is 403, never a server error.
                let user = "schemathesis-user"
                let token = try await ClientTokenTests.mint(stack, [("ES256", ClientTokenTests.claims(stack, user: user, pushIds: ["p-1"], lifetime: 3000), nil)])[0]
                let clientOperations = Endpoint.all(.herald).filter { $0.client != .refused }.map(\.rawValue).joined(separator: "|")
                try await run("client-token", authorization: token, only: "^(\(clientOperations))$", parameters: "\"path.userId\" = \"\(user)\"")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
