import Foundation
import DispatchKit
import HTTPTransport

/// What an FCM `messages:send` answer means, per FCM's error table: delivered, retry
/// (honouring `Retry-After`), a permanent failure, a dead token, or — a 401 without an FCM
/// error code — a refused access token.
public enum FCMAnswer: Sendable, Hashable {
    case result(SendResult)
    case accessTokenRefused

    public init(_ response: HTTPResponse, now: Date = Date()) {
        let retryAfter = Self.retryAfter(response.header("retry-after"), now: now)
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        if (200..<300).contains(response.status) {
            self = .result(.delivered(providerId: object?["name"] as? String))
            return
        }
        let error = object?["error"] as? [String: Any]
        let message = error?["message"] as? String ?? "HTTP \(response.status)"
        let details = error?["details"] as? [[String: Any]] ?? []
        let code = details.first { ($0["@type"] as? String)?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?["errorCode"] as? String
        let fields = details.flatMap { ($0["fieldViolations"] as? [[String: Any]]) ?? [] }.compactMap { $0["field"] as? String }
        switch code {
        case "UNREGISTERED", "SENDER_ID_MISMATCH":
            self = .result(.revoked(code: code!, reason: message))
        case "INVALID_ARGUMENT" where fields.contains("message.token") || message.contains("registration token"):
            self = .result(.revoked(code: "INVALID_ARGUMENT", reason: message))
        case "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL", "UNSPECIFIED_ERROR":
            self = .result(.retry(code: code!, reason: message, retryAfter: retryAfter))
        case let code?:
            self = .result(.failed(code: code, reason: message))
        case nil where response.status == 401:
            self = .accessTokenRefused
        case nil where response.status == 429 || response.status >= 500:
            self = .result(.retry(code: error?["status"] as? String ?? "HTTP_\(response.status)", reason: message, retryAfter: retryAfter))
        case nil:
            self = .result(.failed(code: error?["status"] as? String ?? "HTTP_\(response.status)", reason: message))
        }
    }

    /// `Retry-After` as seconds or an HTTP date.
    static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
    }
}
