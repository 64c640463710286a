import Foundation

/// An HTTP error the gateway answers with, as RFC 9457 `application/problem+json`:
/// `type`, `title`, `status`, `detail`, and the offending `field` when there is one.
public struct GatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var title: String
    public var detail: String
    public var field: String?
    public var retryAfter: Int?
    /// For a 500: the id its log line carries.
    public var requestId: String?

    public init(_ status: Int, _ title: String, _ detail: String, field: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.title = title
        self.detail = detail
        self.field = field
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status) \(title): \(detail)" }

    static func invalid(_ field: String, _ detail: String) -> GatewayError {
        GatewayError(400, "Invalid request", "\(field): \(detail)", field: field)
    }

    static func unavailable(_ detail: String) -> GatewayError {
        GatewayError(503, "Service Unavailable", detail, retryAfter: 5)
    }

    /// The problem document.
    public var body: Data {
        var object: [String: Any] = ["type": "about:blank", "title": title, "status": status, "detail": detail]
        if let field { object["field"] = field }
        if let requestId { object["requestId"] = requestId }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}
