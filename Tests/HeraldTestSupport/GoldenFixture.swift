import Foundation

/// Golden fixtures: files in a test target's `Fixtures/` that pin an encoding, so a change
/// shows in review. With `HERALD_RECORD_FIXTURES=1` the current encoding is written over the
/// source file first (regenerate deliberately, then read the diff).
public enum GoldenFixture {
    public static let recording = ProcessInfo.processInfo.environment["HERALD_RECORD_FIXTURES"] == "1"

    /// The fixture `name` in `subdirectory` of `bundle` (the test target's resources), after
    /// recording `encoded` into the source folder next to `testFile` when recording is on.
    /// Nil when the fixture does not exist.
    public static func expected(_ encoded: Data, name: String, subdirectory: String = "Fixtures", bundle: Bundle, testFile: String = #filePath) throws -> Data? {
        if recording {
            let source = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("\(subdirectory)/\(name)")
            try encoded.write(to: source)
        }
        guard let url = bundle.url(forResource: name, withExtension: nil, subdirectory: subdirectory) else { return nil }
        return try Data(contentsOf: url)
    }
}
