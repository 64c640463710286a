import Foundation
import HeraldModel
import JSONKit

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

    public static func invalid(_ field: String, _ detail: String) -> GatewayError {
        GatewayError(400, "Invalid request", "\(field): \(detail)", field: field)
    }

    /// A token refused for `field`: 400 for its form, 422 for a well-formed one Herald will not send to.
    public static func refused(_ field: String, _ problem: TokenProblem) -> GatewayError {
        problem.unusable ? GatewayError(422, "Unprocessable Content", "\(field): \(problem.detail)", field: field) : .invalid(field, problem.detail)
    }

    public static func unavailable(_ detail: String) -> GatewayError {
        GatewayError(503, "Service Unavailable", detail, retryAfter: 5)
    }

    /// The problem document, its members in sorted order (as `JSONSerialization` with
    /// `.sortedKeys` writes it), written without Foundation: every refused request pays for
    /// one, so a client retrying against a 401 or 429 costs the gateway little.
    public var body: Data {
        var json = JSONWriter(capacity: 96 + detail.utf8.count)
        json.beginObject()
        json.key("detail"); json.string(detail)
        if let field { json.key("field"); json.string(field) }
        if let requestId { json.key("requestId"); json.string(requestId) }
        json.key("status"); json.int(status)
        json.key("title"); json.string(title)
        json.key("type"); json.string("about:blank")
        json.endObject()
        return json.data
    }
}
