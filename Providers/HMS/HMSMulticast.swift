import Foundation
import HeraldModel

/// Which deliveries may share one Push Kit request: plain ones of the same app and event
/// whose rendered content, priority, collapse key and expiry are the same. An encrypted
/// payload is sealed for one device, so it always goes alone.
public enum HMSMulticast {
    /// What deliveries sharing a request have in common.
    public struct Key: Hashable, Sendable {
        var app: String
        var eventId: String
        var data: [String: String]
        var notification: DispatchRequest.Notification?
        var category: String?
        var priority: Priority
        var collapseKey: String?
        var ttlSeconds: Int?
        var expiresAt: Date?
    }

    /// The request's key, or nil when it must go alone (encrypted).
    public static func key(_ request: DispatchRequest) -> Key? {
        guard request.data["enc"] == nil else { return nil }
        return Key(
            app: request.app, eventId: request.eventId, data: request.data, notification: request.notification, category: request.category,
            priority: request.priority, collapseKey: request.collapseKey, ttlSeconds: request.ttlSeconds, expiresAt: request.expiresAt)
    }

    /// `batch`'s indices grouped into requests: those with the same key together, in their
    /// order, at most `limit` to a group; each request without a key alone.
    public static func groups(_ batch: [DispatchRequest], limit: Int) -> [[Int]] {
        var groups: [[Int]] = []
        var open: [Key: Int] = [:]
        for (index, request) in batch.enumerated() {
            guard let key = key(request) else {
                groups.append([index])
                continue
            }
            if let position = open[key], groups[position].count < limit {
                groups[position].append(index)
            } else {
                open[key] = groups.count
                groups.append([index])
            }
        }
        return groups
    }
}
