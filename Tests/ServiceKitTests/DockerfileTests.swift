import Foundation
import HeraldTestSupport
import Testing

/// The image's build stage has every folder the package's non-test targets live in: a folder
/// it does not copy (EventSources/ when sources became modules) fails `docker build`, which
/// only the compose check would otherwise notice.
@Suite("The Dockerfile")
struct DockerfileTests {
    @Test("the build stage copies every folder a non-test target lives in")
    func theBuildStageCopiesEveryTargetsFolder() async throws {
        let targets = try await LayeringTests.targets()
        let folders = Set(targets.values.filter { !$0.path.hasPrefix("Tests/") && !$0.path.hasSuffix("/Tests") }.map(\.folder))
        #expect(folders.contains("Shared") && folders.contains("Providers"))
        let dockerfile = try String(contentsOf: PythonChecker.packageRoot.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let copied = Set(dockerfile.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count == 3 && words[0] == "COPY" && words[1] == words[2] ? String(words[1]) : nil
        })
        #expect(folders.subtracting(copied).isEmpty, "not copied into the build stage: \(folders.subtracting(copied).sorted())")
    }
}
