import Foundation
import HeraldTestSupport
import Testing

/// The kit must fit an iOS notification service extension: it uses Foundation, HeraldCrypto
/// and the documents it shares with the server (HeraldDocuments, Foundation only), and
/// nothing of the server. (FoundationNetworking is Foundation's URLSession on Linux; on
/// Apple's systems it is Foundation itself.)
struct KitDependencyTests {
    @Test func theKitImportsOnlyFoundationHeraldCryptoAndTheSharedDocuments() throws {
        try expectImports(in: "Client/HeraldClient", within: ["Foundation", "HeraldCrypto", "HeraldDocuments"], files: 5)
    }

    @Test func theSharedDocumentsImportOnlyFoundation() throws {
        try expectImports(in: "Shared/HeraldDocuments", within: ["Foundation"], files: 1)
    }

    private func expectImports(in path: String, within allowed: Set<String>, files atLeast: Int) throws {
        let folder = PythonChecker.packageRoot.appendingPathComponent(path)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= atLeast)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.contains(" import ") && $0.hasPrefix("@") }
                .filter { $0 != "import FoundationNetworking" }
            for line in imports {
                let module = line.split(separator: " ").last.map(String.init) ?? ""
                #expect(allowed.contains(module), "\(path)/\(file) imports \(module)")
            }
        }
    }
}
