import Foundation
import HeraldModel

/// A trace id as the event log keeps it: its 16 bytes instead of 32 hex digits; nil for
/// anything that is not a W3C trace id (32 lowercase hex digits), which is not kept.
enum StoredTraceId {
    static func bytes(_ traceId: String?) -> Data? {
        guard let traceId, traceId.utf8.count == 32, let bytes = Hex.decode(traceId), Hex.encode(bytes) == traceId else { return nil }
        return Data(bytes)
    }

    static func text(_ bytes: Data?) -> String? {
        guard let bytes, bytes.count == 16 else { return nil }
        return Hex.encode(bytes)
    }
}
