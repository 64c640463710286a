import Foundation
import HTTPTransport
import JSONKit

/// An OAuth 2.0 token endpoint (RFC 6749 §5): a form `POST`, answered with `access_token`
/// and `expires_in` (a number or, from some servers, a string), or an error.
public struct OAuthTokenEndpoint: Sendable {
    public var url: String
    public var transport: HTTPTransport
    public var timeout: Duration

    public init(url: String, transport: HTTPTransport, timeout: Duration = .seconds(10)) {
        self.url = url
        self.transport = transport
        self.timeout = timeout
    }

    /// Posts `form` (already URL-encoded) and returns the token. Throws `TokenRequestError`
    /// for an error answer, `HTTPTransportError` when no answer came.
    public func requestToken(form: String) async throws -> AccessToken {
        let response = try await transport.send(HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8), timeout: timeout))
        let object = try? JSONValue(json: response.body)
        guard response.status == 200, let token = object?["access_token"]?.stringValue, !token.isEmpty else {
            let detail = object?["error_description"]?.stringValue ?? object?["error"]?.stringValue
                ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw TokenRequestError(status: response.status == 200 ? 502 : response.status, detail: detail)
        }
        let lifetime = object?["expires_in"]?.doubleValue ?? object?["expires_in"]?.stringValue.flatMap(Double.init) ?? 3600
        return AccessToken(token: token, lifetime: lifetime)
    }

    /// `application/x-www-form-urlencoded` of `pairs`, in order.
    public static func form(_ pairs: [(String, String)]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return pairs.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }
}
