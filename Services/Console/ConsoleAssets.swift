import Foundation

/// The console's static files (HTML, CSS, ES modules), shipped as the module's resources and
/// read once: served as they are, with no build step and nothing from another origin.
struct ConsoleAssets: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    let files: [String: File]

    /// The page every console path answers: the shell the modules draw into.
    var shell: File? { files["index.html"] }

    static let shared = ConsoleAssets()

    init() {
        var files: [String: File] = [:]
        if let directory = Bundle.module.url(forResource: "Assets", withExtension: nil),
           let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
            for name in names {
                guard let type = Self.contentTypes[(name as NSString).pathExtension],
                      let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
                files[name] = File(bytes: Array(data), contentType: type)
            }
        }
        self.files = files
    }

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
    ]
}
