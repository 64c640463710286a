import DispatchKit
import Foundation
import HTTPTransport
import JSONKit

/// What an FCM `messages:send` answer means, per FCM's error table: delivered, retry
/// (honouring `Retry-After`), a permanent failure or a dead token. Answers without an FCM
/// error code fall back to the HTTP status class; a 401 without one is a refused access
/// token (see `refusal`), which `AuthorizedSender` handles before this is read.
public enum FCMAnswer {
    public static func result(_ response: HTTPResponse, now: Date = Date()) -> SendResult {
        let object = try? JSONValue(json: response.body)
        if (200..<300).contains(response.status) {
            return .delivered(providerId: object?["name"]?.stringValue)
        }
        let error = object?["error"]
        let message = error?["message"]?.stringValue ?? "HTTP \(response.status)"
        let details = error?["details"]?.arrayValue ?? []
        let code = (details.first { $0["@type"]?.stringValue?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?["errorCode"]?.stringValue)
            .map { FCMErrorCode($0) }
        let fields = details.flatMap { $0["fieldViolations"]?.arrayValue ?? [] }.compactMap { $0["field"]?.stringValue }
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
            return SendResult(status: response, code: error?["status"]?.stringValue.map { FCMErrorCode($0) }, reason: message, now: now)
        }
    }

    /// A 401 without an FCM error code: the access token expired or is bad. Returns FCM's
    /// message for it.
    public static func refusal(_ response: HTTPResponse) -> String? {
        guard response.status == 401 else { return nil }
        let error = (try? JSONValue(json: response.body))?["error"]
        let details = error?["details"]?.arrayValue ?? []
        guard !details.contains(where: { $0["@type"]?.stringValue?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }) else { return nil }
        return error?["message"]?.stringValue ?? "HTTP 401"
    }
}
