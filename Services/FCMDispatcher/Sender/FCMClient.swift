import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport
import ProviderMessages

/// Sends to FCM for one app: its project, endpoint and access tokens.
public struct FCMClient: Sendable {
    public let app: String
    public let account: FCMServiceAccount
    public let endpoint: String
    public let tokens: AccessTokenCache
    let transport: HTTPTransport

    public init(app: String, account: FCMServiceAccount, endpoint: String?, transport: HTTPTransport) {
        self.app = app
        self.account = account
        self.endpoint = (endpoint ?? "https://fcm.googleapis.com").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.transport = transport
        tokens = AccessTokenCache { [account, transport] in try await FCMOAuth.fetchToken(for: account, transport: transport) }
    }

    public var sendURL: String { "\(endpoint)/v1/projects/\(account.projectId)/messages:send" }

    /// Sends one request; a refused access token is refreshed once and the send repeated.
    public func send(_ request: DispatchRequest) async -> SendResult {
        let body: Data
        do {
            body = try FCMMessage(request).requestBody()
        } catch {
            return .failed(code: "ENCODING", reason: "the message cannot be encoded: \(error)")
        }
        do {
            var token = try await tokens.token()
            for attempt in 1...2 {
                let response = try await transport.send(HTTPRequest(
                    method: "POST", url: sendURL,
                    headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: body))
                switch FCMAnswer(response) {
                case .result(let result):
                    return result
                case .accessTokenRefused where attempt == 1:
                    token = try await tokens.replace(token)
                case .accessTokenRefused:
                    return .retry(code: "UNAUTHENTICATED", reason: "FCM refused a freshly issued access token")
                }
            }
            return .retry(code: "UNAUTHENTICATED", reason: "FCM refused the access token")
        } catch let error as HTTPTransportError {
            return error.reason == .invalidRequest
                ? .failed(code: "TRANSPORT", reason: error.description)
                : .retry(code: "TRANSPORT", reason: error.description)
        } catch let error as FCMOAuthError {
            return .retry(code: "OAUTH", reason: error.description)
        } catch {
            return .retry(code: "OAUTH", reason: "\(error)")
        }
    }
}
