import DispatchKit
import Foundation
import HTTPTransport
import JSONKit

/// What an APNs answer means, per Apple's table ("Handling notification responses from
/// APNs"): 200 delivered (with `apns-id`); 410 `Unregistered` / `ExpiredToken` and 400
/// `BadDeviceToken` revoke the token (a 410 since its `timestamp`); 429, 500, 503 and
/// `Shutdown` are retried (honouring `Retry-After`); the rest fail with Apple's reason.
public enum APNsAnswer {
    public static func result(_ response: HTTPResponse, now: Date = Date()) -> SendResult {
        if response.status == 200 {
            return .delivered(providerId: response.header("apns-id"))
        }
        let object = try? JSONValue(json: response.body)
        guard let raw = object?["reason"]?.stringValue else {
            return SendResult(status: response, reason: "HTTP \(response.status) without a reason", now: now)
        }
        let reason = APNsReason(raw)
        let retryAfter = RetryAfter.parse(response.header("retry-after"), now: now)
        switch (response.status, reason) {
        case (410, _):
            // Milliseconds since 1970: when APNs last confirmed the token was invalid for the topic.
            let invalidSince = object?["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
            return .revoked(code: reason, reason: "\(raw): the device token is no longer active for the topic", invalidSince: invalidSince)
        case (_, .badDeviceToken):
            return .revoked(code: reason, reason: "BadDeviceToken: the token is not valid for this app's APNs environment")
        case (_, .payloadTooLarge), (413, _):
            return .failed(code: reason, reason: "\(raw): the body exceeds Apple's 4,096 bytes (the encryption stage should have degraded it)")
        case (429, _), (500, _), (503, _):
            return .retry(code: reason, reason: raw, retryAfter: retryAfter)
        case (_, _) where APNsReason.retryable.contains(reason):
            return .retry(code: reason, reason: raw, retryAfter: retryAfter)
        case (_, _) where APNsReason.configuration.contains(reason):
            return .failed(code: reason, reason: "\(raw): the app's apns settings (topic, key, team or environment) do not match the token")
        default:
            return .failed(code: reason, reason: raw)
        }
    }

    /// A 403 refusing the provider token (`ExpiredProviderToken`, `InvalidProviderToken`,
    /// `MissingProviderToken`):
    /// Apple's reason, so `AuthorizedSender` renews the token once and retries.
    public static func refusal(_ response: HTTPResponse) -> String? {
        guard response.status == 403,
              let raw = (try? JSONValue(json: response.body))?["reason"]?.stringValue, APNsReason.tokenRefusals.contains(APNsReason(raw)) else { return nil }
        return raw
    }
}
