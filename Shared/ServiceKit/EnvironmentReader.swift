import Foundation

/// Reads settings from environment variables: surrounding spaces are ignored, a blank value
/// counts as unset, and every problem is a `ConfigurationError` naming the variable (so
/// `ServiceRuntime.main` exits with code 2 and a message an operator can act on).
public struct EnvironmentReader: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    /// The trimmed value, or nil when unset or blank.
    public func string(_ key: String) -> String? {
        guard let text = values[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    /// A comma-separated list, without blank items.
    public func list(_ key: String) -> [String] {
        string(key)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }

    /// A value parsed by `parse`, which returns nil for text it refuses; `expected` says what was expected.
    public func parse<T>(_ key: String, expected: String, _ parse: (String) -> T?) throws -> T? {
        guard let text = string(key) else { return nil }
        guard let value = parse(text) else { throw invalid(key, "\"\(text)\" is not \(expected)") }
        return value
    }

    /// The path of a file that must be readable now (so a wrong path stops a service at
    /// start, not at first use), or nil when unset.
    public func readableFile(_ key: String) throws -> String? {
        guard let path = string(key) else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError(.missingFile, setting: key, "cannot read the file \(path)")
        }
        return path
    }

    public func invalid(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(.invalidValue, setting: key, message)
    }
}
