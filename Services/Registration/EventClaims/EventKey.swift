import Crypto
import Foundation

/// An event as the idempotency table knows it: its app and id.
public struct EventKey: Sendable, Hashable {
    public var app: String
    public var eventId: String

    public init(app: String, eventId: String) {
        self.app = app
        self.eventId = eventId
    }

    /// The event's name in the idempotency table: the first 128 bits of SHA-256 over app
    /// and id, 16 bytes whatever the lengths of the two (a collision is as likely as two
    /// random UUIDs meeting).
    var digest: Data {
        var hasher = SHA256()
        hasher.update(data: Data(app.utf8))
        hasher.update(data: Data([0]))
        hasher.update(data: Data(eventId.utf8))
        return Data(hasher.finalize().prefix(16))
    }

    /// The digest as PostgreSQL's `uuid`: 16 bytes in the row and its index, no length.
    var uuid: UUID {
        let b = [UInt8](digest)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// The event log's lookup key: the digest's first 64 bits as an integer. Not unique on
    /// its own: a lookup compares app and id as well.
    var logKey: Int64 {
        digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
}
