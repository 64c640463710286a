import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport
import Metrics

/// Push Kit for one app: its app id, endpoint and access tokens. A batch is sent as few
/// requests as multicast allows (`HMSMulticast`, at most `maxTokens` tokens each), each
/// request read per token; a request Push Kit finds too large in tokens (`80300010`) is
/// split in halves and sent again.
public struct HMSClient: ProviderClient {
    /// Push Kit's limit on the tokens of one request.
    public static let maxTokens = 1000

    public let app: String
    public let appId: String
    public let tokens: AccessTokenCache
    /// `…/v1/<appId>/messages:send`.
    public let sendURL: String
    let sender: AuthorizedSender
    private let tokensPerRequest = Recorder(label: "herald_dispatch_request_tokens", dimensions: [("platform", "hms")])

    /// `endpoint` defaults to Huawei's push API, `tokenEndpoint` to Huawei's OAuth server.
    public init(
        app: String, appId: String, clientId: String, clientSecret: String,
        endpoint: String?, tokenEndpoint: String?, transport: HTTPTransport
    ) {
        self.app = app
        self.appId = appId
        let base = (endpoint ?? "https://push-api.cloud.huawei.com").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        sendURL = "\(base)/v1/\(appId)/messages:send"
        let tokenEndpoint = OAuthTokenEndpoint(url: tokenEndpoint ?? HMSOAuth.tokenURL, transport: transport)
        tokens = AccessTokenCache {
            try await HMSOAuth.requestToken(clientId: clientId, clientSecret: clientSecret, at: tokenEndpoint)
        }
        sender = AuthorizedSender(transport: transport, tokens: tokens)
    }

    public func send(_ batch: [DispatchRequest]) async -> [SendResult] {
        await BatchParts.send(batch, in: HMSMulticast.groups(batch, limit: Self.maxTokens)) { part in await self.send(message: part) }
    }

    /// Sends one Push Kit message to the tokens of `requests` (which share their payload)
    /// and returns each one's result.
    func send(message requests: [DispatchRequest]) async -> [SendResult] {
        let body: Data
        do {
            body = try HMSMessage(multicast: requests).requestBody()
        } catch {
            return requests.map { _ in .failed(.encoding, "the message cannot be encoded: \(error)") }
        }
        tokensPerRequest.record(requests.count)
        let answer = await sender.send(refusal: HMSAnswer.refusal) { token in
            HTTPRequest(
                method: "POST", url: sendURL,
                headers: [("Authorization", "Bearer \(token ?? "")"), ("Content-Type", "application/json;charset=utf-8")], body: body)
        }
        switch answer {
        case .result(let result):
            return requests.map { _ in result }
        case .response(let response):
            switch HMSAnswer.read(response, tokens: requests.map(\.token)) {
            case .results(let results):
                return results
            case .tooManyTokens(let reason):
                guard requests.count > 1 else { return [.failed(code: HMSResultCode.tooManyTokens, reason: reason)] }
                let half = requests.count / 2
                async let first = send(message: Array(requests[..<half]))
                async let second = send(message: Array(requests[half...]))
                return await first + second
            }
        }
    }
}
