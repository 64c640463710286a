import Foundation
import HTTPTransport

extension SendResult {
    /// What an HTTP answer means by its status class alone, for answers the provider's own
    /// table does not cover: 2xx delivered, 429 and 5xx retried (never sooner than
    /// `Retry-After`), anything else a permanent failure. `code` defaults to the status
    /// (`HTTP_<status>`).
    public init(status response: HTTPResponse, code: (any ProviderCode)? = nil, reason: String? = nil, now: Date = Date()) {
        let code = code ?? HTTPStatusCode(response.status)
        let reason = reason ?? "HTTP \(response.status)"
        switch response.status {
        case 200..<300:
            self = .delivered(providerId: nil)
        case 429, 500..<600:
            self = .retry(code: code, reason: reason, retryAfter: RetryAfter.parse(response.header("retry-after"), now: now))
        default:
            self = .failed(code: code, reason: reason)
        }
    }

    /// A request that got no HTTP answer: retried, unless it could never be sent.
    public init(transportError error: HTTPTransportError) {
        self = error.reason == .invalidRequest
            ? .failed(.transport, error.description)
            : .retry(.transport, error.description)
    }
}
