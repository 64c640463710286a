import Foundation
import HeraldTestSupport
import Testing

/// The kit must fit an iOS notification service extension: it uses Foundation and
/// HeraldCrypto, and nothing of the server. (FoundationNetworking is Foundation's URLSession
/// on Linux; on Apple's systems it is Foundation itself.)
struct KitDependencyTests {
    @Test func theKitImportsOnlyFoundationAndHeraldCrypto() throws {
        let folder = PythonChecker.packageRoot.appendingPathComponent("Client/HeraldClient")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.contains(" import ") && $0.hasPrefix("@") }
                .filter { $0 != "import FoundationNetworking" }
            for line in imports {
                let module = line.split(separator: " ").last.map(String.init) ?? ""
                #expect(["Foundation", "HeraldCrypto"].contains(module), "\(file) imports \(module)")
            }
        }
    }
}
