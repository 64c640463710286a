import Foundation


/// Reads the secret files of the apps configuration (a service account, a client secret, a
/// signing secret). A file that cannot be read, or is empty, is a `ConfigurationError`
/// naming the setting and the file, never its content.
public enum SecretFile {
    /// The file's bytes.
    public static func data(_ path: String, setting: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(.missingFile, setting: setting, "cannot read the file \(path)")
        }
        guard !data.isEmpty else {
            throw ConfigurationError(.invalidFile, setting: setting, "the file \(path) is empty")
        }
        return data
    }

    /// The file's text without surrounding white space (a trailing newline is common).
    public static func text(_ path: String, setting: String) throws -> String {
        let text = String(decoding: try data(path, setting: setting), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw ConfigurationError(.invalidFile, setting: setting, "the file \(path) holds only white space")
        }
        return text
    }
}
