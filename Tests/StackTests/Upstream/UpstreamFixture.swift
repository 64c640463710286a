import Foundation
import HeraldTestSupport

/// A request body copied from an upstream's own documentation, in `Fixtures/<name>.json` as
/// `{"source": where it was copied from, "body": the request}`.
enum UpstreamFixture {
    /// The folder of the upstreams' documented request bodies, beside this file.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func body(_ name: String) throws -> [String: Any] {
        let url = folder.appendingPathComponent("\(name).json")
        let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        guard let fixture, fixture["source"] is String, let body = fixture["body"] as? [String: Any] else {
            throw TestFailure("Fixtures/\(name).json must be {source, body}")
        }
        return body
    }
}
