import Foundation
import HeraldServices
import HeraldTestSupport
import ProviderSandbox
import Testing

/// What follows from the manifest (compose.yaml's dispatchers, Prometheus's targets, the Helm
/// chart's services, scripts/run's executables and ports, openapi.yaml's platform enums) is as
/// `scripts/generate` writes it from the registry these tests link: a provider added to the
/// registry without running the generator fails here, naming the stale files. The manifest is
/// herald's and the sandbox's emulators', as `scripts/generate` reads them from the two binaries.
@Suite("Generated deploy files")
struct GeneratedFilesTests {
    /// Writes herald's manifest (`json`) and the sandbox's emulators (`emulators`) into `folder`
    /// and returns the generator's arguments naming them.
    func manifestArguments(in folder: URL, json: [String: Any] = HeraldManifest.json(), emulators: [String: Any] = EmulatorManifest.json()) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifest = folder.appendingPathComponent("manifest.json")
        let emulatorsFile = folder.appendingPathComponent("emulators.json")
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)
        try JSONSerialization.data(withJSONObject: emulators).write(to: emulatorsFile)
        return ["--manifest", manifest.path, "--emulators", emulatorsFile.path]
    }

    @Test("every generated part is as the manifest of the linked registry says")
    func generatedPartsAreCurrent() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-manifest-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = try await runCommand("python3", [
            PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path, "--check",
        ] + manifestArguments(in: folder))
        #expect(check.status == 0, "\(check.output)")
    }

    @Test("a provider added to Package.swift's providerModules makes the registry stale until scripts/generate writes it")
    func aNewProviderModuleMakesTheRegistryStale() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("herald-generate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["Package.swift", "Providers/HeraldProviders/HeraldProviders.swift", "compose.yaml", "deploy/prometheus/prometheus.yml",
                     "deploy/helm/herald/templates/_helpers.tpl", "deploy/helm/herald/values.schema.json", "scripts/run", "Services/Gateway/openapi.yaml",
                     "deploy/herald.yaml", "EventSources/HeraldSources/HeraldSources.swift", "Providers/HeraldEmulators/HeraldEmulators.swift"]
        for file in files {
            let target = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: PythonChecker.packageRoot.appendingPathComponent(file), to: target)
        }
        let package = root.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: package, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("let providerModules = [") })
        try text.replacingOccurrences(of: line, with: line.replacingOccurrences(of: "]", with: ", \"Pigeon\"]")).write(to: package, atomically: true, encoding: .utf8)
        let manifest = try manifestArguments(in: root.appendingPathComponent("manifest"))
        let generate = PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path
        let check = try await runCommand("python3", [generate, "--root", root.path, "--check"] + manifest)
        #expect(check.status == 1 && check.output.contains("HeraldProviders.swift"), "\(check.output)")
        let write = try await runCommand("python3", [generate, "--root", root.path] + manifest)
        #expect(write.status == 0, "\(write.output)")
        let registry = try String(contentsOf: root.appendingPathComponent(files[1]), encoding: .utf8)
        #expect(registry.contains("import Pigeon") && registry.contains("        PigeonProvider(),"), "\(registry)")
    }

    @Test("the generator notices a manifest with one more provider")
    func aNewProviderMakesThemStale() async throws {
        var json = HeraldManifest.json()
        var executables = try #require(json["executables"] as? [[String: Any]])
        executables.append([
            "name": "herald-pigeon", "kind": "dispatcher", "port": 8099, "summary": "carries notes", "stateful": false,
            "platform": "pigeon", "queue": "dispatch.pigeon", "retryQueues": [String](),
        ])
        json["executables"] = executables
        var providers = try #require(json["providers"] as? [[String: Any]])
        providers.append([
            "platform": "pigeon", "executable": "herald-pigeon", "registersDevices": true, "deliversEvents": true,
        ])
        json["providers"] = providers
        json["devicePlatforms"] = (json["devicePlatforms"] as? [String] ?? []) + ["pigeon"]
        json["eventPlatforms"] = (json["eventPlatforms"] as? [String] ?? []) + ["pigeon"]
        var emulators = EmulatorManifest.json()
        emulators["emulators"] = (emulators["emulators"] as? [[String: Any]] ?? []) + [
            ["platform": "pigeon", "settings": [["endpoint", "${sandboxURL}/loft"]], "hint": "curl -s ${sandbox}/loft"],
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-manifest-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = try await runCommand("python3", [
            PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path, "--check",
        ] + manifestArguments(in: folder, json: json, emulators: emulators))
        #expect(check.status == 1)
        for file in ["compose.yaml", "prometheus.yml", "_helpers.tpl", "values.schema.json", "scripts/run", "openapi.yaml", "deploy/herald.yaml"] {
            #expect(check.output.contains(file), "\(file) not named stale: \(check.output)")
        }
    }
}
