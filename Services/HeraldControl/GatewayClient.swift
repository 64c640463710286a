import Foundation
import HTTPTransport
import JSONKit

/// Herald's public API as `heraldctl` calls it: one app, one API key. Answers that are not
/// 2xx become a `ControlError` with the problem's title and detail.
public struct GatewayClient: Sendable {
    public var baseURL: String
    public var app: String
    public var apiKey: String

    public init(baseURL: String, app: String, apiKey: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.app = app
        self.apiKey = apiKey
    }

    /// `text` as one path segment, percent-encoded.
    public static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/%"))) ?? text
    }

    /// Calls `method path` under `/v1/apps/{app}` with `body` (JSON) and returns the JSON answer.
    public func call(_ method: String, _ path: String, body: Data? = nil, headers: [(name: String, value: String)] = []) async throws(ControlError) -> [String: JSONValue] {
        let appSegment = Self.pathSegment(app)
        var allHeaders = [("Authorization", "Bearer \(apiKey)"), ("Accept", "application/json")]
        if body != nil { allHeaders.append(("Content-Type", "application/json")) }
        allHeaders += headers
        let request = HTTPRequest(method: method, url: "\(baseURL)/v1/apps/\(appSegment)\(path)", headers: allHeaders, body: body)
        let response: HTTPResponse
        do {
            response = try await OneRequest.send(request, name: "heraldctl-gateway", connectTimeout: .seconds(5), requestTimeout: .seconds(30))
        } catch {
            throw ControlError(.unreachable, "cannot reach the gateway at \(baseURL): \(error)")
        }
        let json = (try? JSONValue(json: response.body))?.objectValue ?? [:]
        guard (200..<300).contains(response.status) else {
            let title = json["title"]?.stringValue ?? "HTTP \(response.status)"
            let detail = json["detail"]?.stringValue.map { ": \($0)" } ?? ""
            let reason: ControlError.Reason = switch response.status {
            case 404: .notFound
            case 400, 413, 422: .invalidInput
            case 503: .unreachable
            default: .failed
            }
            throw ControlError(reason, "\(method) \(path) answered \(response.status) \(title)\(detail)")
        }
        return json
    }
}
