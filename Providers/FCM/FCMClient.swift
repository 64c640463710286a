import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport

/// FCM for one app: its project, endpoint and access tokens. One HTTP request per delivery
/// (FCM v1 has no batch endpoint); the shared `AuthorizedSender` does the rest.
public struct FCMClient: UnicastProviderClient {
    public let app: String
    public let account: FCMServiceAccount
    public let endpoint: String
    public let tokens: AccessTokenCache
    let sender: AuthorizedSender
    /// `…/v1/projects/<project>/messages:send`.
    public let sendURL: String

    public init(app: String, account: FCMServiceAccount, endpoint: String?, transport: HTTPTransport) {
        self.app = app
        self.account = account
        self.endpoint = (endpoint ?? "https://fcm.googleapis.com").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let tokenEndpoint = OAuthTokenEndpoint(url: account.tokenUri, transport: transport)
        tokens = AccessTokenCache { [account] in try await FCMOAuth.requestToken(for: account, at: tokenEndpoint) }
        sender = AuthorizedSender(transport: transport, tokens: tokens)
        sendURL = "\(self.endpoint)/v1/projects/\(account.projectId)/messages:send"
    }

    /// Sends one request: FCM's message, read by FCM's answer table.
    public func send(_ request: DispatchRequest) async -> SendResult {
        let body: Data
        do {
            body = try FCMMessage(request).requestBody()
        } catch {
            return .failed(.encoding, "the message cannot be encoded: \(error)")
        }
        let answer = await sender.send(refusal: FCMAnswer.refusal) { token in
            HTTPRequest(method: "POST", url: sendURL, headers: [("Authorization", "Bearer \(token ?? "")"), ("Content-Type", "application/json")], body: body)
        }
        switch answer {
        case .response(let response): return FCMAnswer.result(response)
        case .result(let result): return result
        }
    }
}
