import Foundation
import HeraldTestSupport
import Testing

/// The package's modules form layers without upward edges (docs/architecture.md, "Layers"):
/// infrastructure → runtime → domain → plug-ins (providers and sources) → services →
/// executables and tools. Read from
/// the manifest itself (`swift package dump-package`), so a new target or dependency is
/// checked the moment it is declared.
@Suite("Layering")
struct LayeringTests {
    enum Layer: Int, Comparable {
        case infrastructure, runtime, domain, plugins, services, tools
        static func < (a: Layer, b: Layer) -> Bool { a.rawValue < b.rawValue }
    }

    /// The libraries under Shared/ by layer; every other folder is one layer whole.
    static let shared: [String: Layer] = [
        "CRabbitMQ": .infrastructure, "CCurl": .infrastructure, "Messaging": .infrastructure, "HeraldTracing": .infrastructure,
        "HTTPTransport": .infrastructure, "HeraldCrypto": .infrastructure, "HeraldDocuments": .infrastructure, "JSONKit": .infrastructure,
        "ServiceKit": .runtime, "HeraldStorage": .runtime,
        "HeraldModel": .domain, "HeraldDomain": .domain, "ProviderEmulation": .domain, "DispatchKit": .domain,
    ]

    struct Target {
        let name: String
        let path: String
        let dependencies: [String]
        var folder: String { String(path.split(separator: "/").first ?? "") }
    }

    static func targets() async throws -> [String: Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-dump-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Its own scratch path, so the running build's lock on .build does not hold it up.
        let dump = try await runCommand("swift", ["package", "--package-path", PythonChecker.packageRoot.path, "dump-package", "--scratch-path", scratch.path])
        try #require(dump.status == 0, "swift package dump-package: \(dump.output)")
        let text = String(dump.output[dump.output.firstIndex(of: "{")!...])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let list = try #require(json["targets"] as? [[String: Any]])
        var targets: [String: Target] = [:]
        for entry in list {
            let name = try #require(entry["name"] as? String)
            let dependencies = (entry["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                ((dependency["byName"] ?? dependency["target"]) as? [Any])?.first as? String
            }
            targets[name] = Target(name: name, path: entry["path"] as? String ?? "", dependencies: dependencies)
        }
        return targets
    }

    static func layer(of target: Target) -> Layer? {
        // A source's tests live in its folder (`EventSources/<Module>/Tests`): they are tests.
        if target.path.hasSuffix("/Tests") { return .tools }
        return switch target.folder {
        case "Shared": shared[target.name]
        case "Providers", "EventSources": .plugins
        case "Services": .services
        case "Tools", "Benchmarks", "Tests": .tools
        default: nil
        }
    }

    @Test("every module's dependencies are in its layer or below, and every module has a layer")
    func noUpwardEdge() async throws {
        let targets = try await Self.targets()
        #expect(targets.count > 30)
        var upward: [String] = []
        for target in targets.values.sorted(by: { $0.name < $1.name }) where target.folder != "Client" {
            let layer = try #require(Self.layer(of: target), "\(target.path) has no layer: add it to LayeringTests.shared and docs/architecture.md")
            for name in target.dependencies {
                let dependency = try #require(targets[name])
                if dependency.folder == "Client" {
                    if layer != .tools { upward.append("\(target.name) (\(layer)) → \(name) (the app kit)") }
                    continue
                }
                let below = try #require(Self.layer(of: dependency), "\(dependency.path) has no layer")
                if below > layer { upward.append("\(target.name) (\(layer)) → \(name) (\(below))") }
            }
        }
        #expect(upward.isEmpty, "upward edges: \(upward)")
    }

    @Test("the app kit depends only on infrastructure: HeraldCrypto and the shared documents")
    func theKitStandsAlone() async throws {
        let targets = try await Self.targets()
        let kit = try #require(targets["HeraldClient"])
        for name in kit.dependencies {
            let dependency = try #require(targets[name])
            #expect(Self.layer(of: dependency) == .infrastructure, "HeraldClient → \(name)")
        }
    }

    /// The targets `root` links, directly or through others.
    static func linked(by root: String, _ targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var next = [root]
        while let name = next.popLast() {
            guard seen.insert(name).inserted, let target = targets[name] else { continue }
            next += target.dependencies
        }
        seen.remove(root)
        return seen
    }

    /// The targets the production `herald` (HeraldMultiCall) links.
    static func linkedByHerald(_ targets: [String: Target]) -> Set<String> { linked(by: "HeraldMultiCall", targets) }

    @Test("the production herald links no tool and no test support: not the provider sandbox")
    func theProductionBinaryLinksNoTool() async throws {
        let targets = try await Self.targets()
        let linked = Self.linkedByHerald(targets)
        let tools = linked.filter { name in targets[name].map { Self.layer(of: $0) == .tools && $0.name != "HeraldCtlCommands" } ?? false }
        #expect(!linked.contains("ProviderSandbox"))
        #expect(tools.isEmpty, "herald links \(tools.sorted())")
    }

    @Test("the production herald links no emulator: no provider's Emulation module, their registry or the emulation API")
    func theProductionBinaryLinksNoEmulator() async throws {
        let targets = try await Self.targets()
        let emulation = targets.values.filter { $0.path.hasSuffix("/Emulation") }.map(\.name)
        #expect(emulation.count >= 4, "the providers' Emulation modules: \(emulation)")
        let linked = Self.linkedByHerald(targets)
        let emulators = linked.filter { name in
            emulation.contains(name) || ["HeraldEmulators", "ProviderEmulation"].contains(name)
        }
        #expect(emulators.isEmpty, "herald links \(emulators.sorted())")
    }

    @Test("a stateful service's tests link no provider, emulator or sandbox: their stage harness is the light one")
    func theStatefulServicesTestsStayLight() async throws {
        let targets = try await Self.targets()
        for suite in ["RegistrationTests", "PreferencesTests"] {
            let heavy = Self.linked(by: suite, targets).filter { name in
                targets[name].map { $0.folder == "Providers" } ?? false || ["ProviderSandbox", "HeraldStackTestSupport"].contains(name)
            }
            #expect(heavy.isEmpty, "\(suite) links \(heavy.sorted())")
        }
    }
}
