import Foundation
import HeraldServices
import HeraldTestSupport
import Testing

/// What follows from the manifest (compose.yaml's dispatchers, Prometheus's targets, the Helm
/// chart's services, scripts/run's executables and ports, openapi.yaml's platform enums) is as
/// `scripts/generate` writes it from the registry these tests link: a provider added to the
/// registry without running the generator fails here, naming the stale files.
@Suite("Generated deploy files")
struct GeneratedFilesTests {
    @Test("every generated part is as the manifest of the linked registry says")
    func generatedPartsAreCurrent() async throws {
        let manifest = FileManager.default.temporaryDirectory.appendingPathComponent("herald-manifest-\(UUID()).json")
        try HeraldManifest.text().write(to: manifest, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: manifest) }
        let check = try await runCommand("python3", [
            PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path, "--manifest", manifest.path, "--check",
        ])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test("a provider added to Package.swift's providerModules makes the registry stale until scripts/generate writes it")
    func aNewProviderModuleMakesTheRegistryStale() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("herald-generate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["Package.swift", "Providers/HeraldProviders/HeraldProviders.swift", "compose.yaml", "deploy/prometheus/prometheus.yml",
                     "deploy/helm/herald/templates/_helpers.tpl", "deploy/helm/herald/values.schema.json", "scripts/run", "Services/Gateway/openapi.yaml",
                     "deploy/herald.yaml", "EventSources/HeraldSources/HeraldSources.swift"]
        for file in files {
            let target = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: PythonChecker.packageRoot.appendingPathComponent(file), to: target)
        }
        let package = root.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: package, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("let providerModules = [") })
        try text.replacingOccurrences(of: line, with: line.replacingOccurrences(of: "]", with: ", \"Pigeon\"]")).write(to: package, atomically: true, encoding: .utf8)
        let manifest = root.appendingPathComponent("manifest.json")
        try HeraldManifest.text().write(to: manifest, atomically: true, encoding: .utf8)
        let generate = PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path
        let check = try await runCommand("python3", [generate, "--root", root.path, "--manifest", manifest.path, "--check"])
        #expect(check.status == 1 && check.output.contains("HeraldProviders.swift"), "\(check.output)")
        let write = try await runCommand("python3", [generate, "--root", root.path, "--manifest", manifest.path])
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
            "platform": "pigeon", "executable": "herald-pigeon", "registersDevices": true, "deliversEvents": true, "emulatedBySandbox": true,
            "demo": ["settings": [["endpoint", "${sandboxURL}/loft"]], "hint": "curl -s ${sandbox}/loft"],
        ])
        json["providers"] = providers
        json["devicePlatforms"] = (json["devicePlatforms"] as? [String] ?? []) + ["pigeon"]
        json["eventPlatforms"] = (json["eventPlatforms"] as? [String] ?? []) + ["pigeon"]
        let manifest = FileManager.default.temporaryDirectory.appendingPathComponent("herald-manifest-\(UUID()).json")
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)
        defer { try? FileManager.default.removeItem(at: manifest) }
        let check = try await runCommand("python3", [
            PythonChecker.packageRoot.appendingPathComponent("scripts/generate").path, "--manifest", manifest.path, "--check",
        ])
        #expect(check.status == 1)
        for file in ["compose.yaml", "prometheus.yml", "_helpers.tpl", "values.schema.json", "scripts/run", "openapi.yaml", "deploy/herald.yaml"] {
            #expect(check.output.contains(file), "\(file) not named stale: \(check.output)")
        }
    }
}
