import DispatchKit
import Foundation
import HTTPTransport

/// What an FCM `messages:send` answer means, per FCM's error table: delivered, retry
/// (honouring `Retry-After`), a permanent failure or a dead token. Answers without an FCM
/// error code fall back to the HTTP status class; a 401 without one is a refused access
/// token (see `refusal`), which `AuthorizedSender` handles before this is read.
public enum FCMAnswer {
    public static func result(_ response: HTTPResponse, now: Date = Date()) -> SendResult {
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        if (200..<300).contains(response.status) {
            return .delivered(providerId: object?["name"] as? String)
        }
        let error = object?["error"] as? [String: Any]
        let message = error?["message"] as? String ?? "HTTP \(response.status)"
        let details = error?["details"] as? [[String: Any]] ?? []
        let code = (details.first { ($0["@type"] as? String)?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?["errorCode"] as? String)
            .map { FCMErrorCode($0) }
        let fields = details.flatMap { ($0["fieldViolations"] as? [[String: Any]]) ?? [] }.compactMap { $0["field"] as? String }
        switch code {
        case let code? where code == .unregistered || code == .senderIdMismatch:
            return .revoked(code: code, reason: message)
        case .invalidArgument? where fields.contains("message.token") || message.contains("registration token"):
            return .revoked(code: FCMErrorCode.invalidArgument, reason: message)
        case let code? where FCMErrorCode.retryable.contains(code):
            return .retry(code: code, reason: message, retryAfter: RetryAfter.parse(response.header("retry-after"), now: now))
        case let code?:
            return .failed(code: code, reason: message)
        case nil:
            return SendResult(status: response, code: (error?["status"] as? String).map { FCMErrorCode($0) }, reason: message, now: now)
        }
    }

    /// A 401 without an FCM error code: the access token expired or is bad. Returns FCM's
    /// message for it.
    public static func refusal(_ response: HTTPResponse) -> String? {
        guard response.status == 401 else { return nil }
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        guard !details.contains(where: { ($0["@type"] as? String)?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }) else { return nil }
        return error?["message"] as? String ?? "HTTP 401"
    }
}
