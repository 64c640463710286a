import Crypto
import Foundation
// A device's notification configuration is the one document Preferences filters with and an
// app edits: HeraldDocuments' `NotificationConfiguration`, where its rules are, which the
// server's modules see through HeraldModel.
@_exported import HeraldDocuments

extension NotificationConfiguration {
    /// The configuration's HTTP entity tag (quoted): a digest of its canonical JSON, so
    /// any change, on any replica, gives another tag and equal configurations the same one.
    public var entityTag: String {
        let body = (try? HeraldJSON.encode(self)) ?? Data()
        return "\"" + SHA256.hash(data: body).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-Match` header value names this configuration (RFC 9110 §13.1.1): `*`,
    /// or one of its comma-separated tags equal to `entityTag` (a weak tag never matches).
    public func matches(ifMatch header: String) -> Bool {
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return tags.contains("*") || tags.contains(entityTag)
    }
}
