import Foundation
@testable import Gateway
import HeraldDomain
import Testing

/// The problem document a refused request gets (RFC 9457): written by hand, since every
/// 401 and 429 of a client that keeps trying costs one, and the same document as
/// `JSONSerialization` writes with sorted keys.
struct ProblemDocumentTests {
    static let problems: [GatewayError] = {
        var withId = GatewayError(500, "Internal Server Error", "quote request id 7f0e")
        withId.requestId = "7f0e"
        return [
            GatewayError(401, "Unauthorized", "a valid API key is required (Authorization: Bearer <key>)"),
            GatewayError.invalid("audience.tokens[0].token", "must not contain \"quotes\", \\ or /slashes/"),
            GatewayError(429, "Too Many Requests", "line\nbreak\ttab \u{1} control, é and 🚀", retryAfter: 3),
            GatewayError.unavailable("the broker is unreachable; try again"),
            withId,
        ]
    }()

    @Test(arguments: problems)
    func bodyIsTheSortedDocument(_ problem: GatewayError) throws {
        var object: [String: Any] = ["type": "about:blank", "title": problem.title, "status": problem.status, "detail": problem.detail]
        if let field = problem.field { object["field"] = field }
        if let requestId = problem.requestId { object["requestId"] = requestId }
        let expected = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: problem.body, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }
}
