import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport

/// The adapter for the fake provider: one request for the whole batch (multicast), a result
/// per token read from the answer, everything else left to `AuthorizedSender`.
struct FakeProviderClient: ProviderClient {
    let url: String
    let tokens: AccessTokenCache
    let sender: AuthorizedSender

    init(url: String, secret: String, transport: HTTPTransport) {
        self.url = url
        let endpoint = OAuthTokenEndpoint(url: url + "/token", transport: transport)
        tokens = AccessTokenCache {
            try await endpoint.requestToken(form: OAuthTokenEndpoint.form([("grant_type", "client_credentials"), ("client_id", "fake"), ("client_secret", secret)]))
        }
        sender = AuthorizedSender(transport: transport, tokens: tokens)
    }

    func send(_ batch: [DispatchRequest]) async -> [SendResult] {
        let body = try! JSONSerialization.data(withJSONObject: ["tokens": batch.map(\.token)])
        let answer = await sender.send(refusal: { $0.status == 401 ? "refused" : nil }) { token in
            HTTPRequest(method: "POST", url: url + "/send", headers: [("Authorization", "Bearer \(token ?? "")"), ("Content-Type", "application/json")], body: body)
        }
        switch answer {
        case .result(let result):
            return batch.map { _ in result }
        case .response(let response) where response.status != 200:
            let result = SendResult(status: response)
            return batch.map { _ in result }
        case .response(let response):
            let results = ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["results"] as? [String: String] ?? [:]
            return batch.map { request in
                switch results[request.token] {
                case "ok": .delivered(providerId: nil)
                case "dead": .revoked(code: FakeCode("DEAD"), reason: "the provider does not know this token")
                default: .failed(.unreadableAnswer, "no result for this token")
                }
            }
        }
    }
}

/// A dispatch request for `token` of `app`.
func request(_ token: String, app: String = "alpha") -> DispatchRequest {
    let id = UUID().uuidString
    return DispatchRequest(
        deliveryId: id, eventId: "e-\(id)", app: app, kind: "test", platform: .hms, deviceId: "d-\(id)",
        token: token, os: .android, data: ["herald": "1"])
}

/// A result code of the fake provider's own table.
struct FakeCode: ProviderCode, Hashable {
    let raw: String
    init(_ raw: String) { self.raw = raw }
}
