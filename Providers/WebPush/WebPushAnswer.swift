import DispatchKit
import Foundation
import HTTPTransport

/// What a push service's answer means (RFC 8030 §5, RFC 8292 §4): 201 (or any 2xx) delivered;
/// 404 and 410 the subscription is gone (the device is removed and the app told,
/// `device.revoked`); 413 a payload over the service's limit, which the encryption stage's
/// size check prevents; 429 and 5xx retried after `Retry-After`; 401 and 403 a VAPID token the
/// service refuses (the app's key or subject), failed; any other 4xx, failed.
public enum WebPushAnswer {
    public static func result(_ response: HTTPResponse, now: Date = Date()) -> SendResult {
        switch response.status {
        case 404, 410:
            return .revoked(code: HTTPStatusCode(response.status), reason: "the push service answered \(response.status): the subscription is gone")
        case 413:
            return .failed(code: HTTPStatusCode(413), reason: "the push service refused the payload as too large (413)")
        case 401, 403:
            return .failed(code: HTTPStatusCode(response.status), reason: "the push service refused the VAPID token (\(response.status)): check the app's webpush key and subject")
        default:
            return SendResult(status: response, now: now)
        }
    }
}
