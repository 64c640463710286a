import Foundation
import HTTPTransport

/// Sends a provider's HTTP requests with a current access token. When the provider refuses
/// the token, it is replaced once and the request repeated; what no HTTP answer or no token
/// could be had for becomes a `SendResult` here, the same way for every provider:
/// - no answer (connect, TLS, timeout): retried; a request curl refuses to send: failed;
/// - the token endpoint refusing the credentials: failed with `CREDENTIALS` and its reason
///   (after the one refresh, never retried endlessly); failing otherwise: retried as `OAUTH`;
/// - a freshly issued token refused as well: failed with `UNAUTHENTICATED`.
public struct AuthorizedSender: Sendable {
    public let transport: HTTPTransport
    /// Nil for endpoints that take no access token (webhooks).
    public let tokens: AccessTokenCache?

    /// What came of a send: the provider's answer to read, or already a result.
    public enum Answer: Sendable {
        case response(HTTPResponse)
        case result(SendResult)
    }

    public init(transport: HTTPTransport, tokens: AccessTokenCache?) {
        self.transport = transport
        self.tokens = tokens
    }

    /// Sends the request `make` builds for the current token (nil without a token cache).
    /// `refusal` reads an answer as the provider refusing the token, giving its reason.
    public func send(
        refusal: (HTTPResponse) -> String? = { _ in nil },
        _ make: (_ token: String?) -> HTTPRequest
    ) async -> Answer {
        do {
            var token = try await tokens?.token()
            var response = try await transport.send(make(token))
            guard let tokens, let stale = token, refusal(response) != nil else { return .response(response) }
            token = try await tokens.replace(stale)
            response = try await transport.send(make(token))
            if let reason = refusal(response) {
                return .result(.failed(.unauthenticated, "the provider refused a freshly issued access token: \(reason)"))
            }
            return .response(response)
        } catch let error as HTTPTransportError {
            return .result(SendResult(transportError: error))
        } catch let error as TokenRequestError {
            return .result(error.refusesCredentials ? .failed(.credentials, error.description) : .retry(.oauth, error.description))
        } catch {
            return .result(.retry(.oauth, "\(error)"))
        }
    }
}
