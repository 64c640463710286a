import DispatchKit
import Foundation
import HTTPTransport
import JSONKit

/// What a Push Kit `messages:send` answer means for each token of the request, per Push Kit's
/// result codes (the `code` string of the JSON body; the HTTP status is only a fallback):
///
/// | code | each token |
/// |---|---|
/// | `80000000` | delivered |
/// | `80100000` | revoked if Push Kit lists it as illegal, delivered otherwise |
/// | `80300007` | revoked (every token of the request is invalid) |
/// | `80300010` | too many tokens: the caller splits the request and sends again |
/// | `80100004` | expired |
/// | `81000001`, `80600003`, any code with HTTP 5xx or 429 | retried, never sooner than `Retry-After` |
/// | `80200001`, `80200003` | a refused access token (see `refusal`), handled by `AuthorizedSender` |
/// | any other code (`80100001`, `80100003`, `80100018`, `80300002`, `80300008`, …) | failed |
public enum HMSAnswer {
    /// An answer read for a request's tokens.
    public enum Reading: Sendable, Hashable {
        /// One result per token, in the request's order.
        case results([SendResult])
        /// `80300010`: the request listed more tokens than Push Kit takes.
        case tooManyTokens(reason: String)
    }

    /// Reads `response` for a request that listed `tokens`.
    public static func read(_ response: HTTPResponse, tokens: [String], now: Date = Date()) -> Reading {
        let body = Body(response)
        func all(_ result: SendResult) -> Reading { .results(tokens.map { _ in result }) }
        guard let code = body.code.map({ HMSResultCode($0) }) else {
            return all(SendResult(status: response, reason: body.message ?? "HTTP \(response.status) without a Push Kit code", now: now))
        }
        let reason = body.message ?? code.raw
        switch code {
        case .success:
            return all(.delivered(providerId: body.requestId))
        case .partialSuccess:
            // Only the listed tokens failed; the rest were taken, and sending to them again
            // would deliver twice. An unreadable list leaves every token delivered.
            let illegal = illegalTokens(in: reason)
            return .results(tokens.map { token in
                illegal.contains(token)
                    ? .revoked(code: code, reason: "Push Kit lists the token as illegal")
                    : .delivered(providerId: body.requestId)
            })
        case .allTokensInvalid:
            return all(.revoked(code: code, reason: reason))
        case .tooManyTokens:
            return .tooManyTokens(reason: reason)
        case .ttlExpired:
            return all(.expired(code: code, reason: reason))
        case let code where HMSResultCode.retryable.contains(code) || response.status == 429 || response.status >= 500:
            return all(.retry(code: code, reason: reason, retryAfter: RetryAfter.parse(response.header("retry-after"), now: now)))
        default:
            return all(.failed(code: code, reason: reason))
        }
    }

    /// Push Kit refusing the access token (`80200001` authentication error, `80200003`
    /// expired): its message, so the sender fetches a new token and sends once more.
    public static func refusal(_ response: HTTPResponse) -> String? {
        let body = Body(response)
        guard let code = body.code.map({ HMSResultCode($0) }), code == .authenticationError || code == .accessTokenExpired else { return nil }
        return "\(code) \(body.message ?? "")"
    }

    /// The illegal tokens an `80100000` lists in its `msg`, a JSON text. Huawei's v1
    /// documentation shows `{"success":1,"failure":1,"illegal_tokens":["…"]}`; newer answers
    /// have been seen with `illegalTokens`, as a list or grouped by reason. All three are read.
    static func illegalTokens(in message: String) -> Set<String> {
        guard let object = (try? JSONValue(json: Data(message.utf8)))?.objectValue else { return [] }
        /// A list of strings (and nothing else) as tokens.
        func strings(_ value: JSONValue) -> [String]? {
            guard let list = value.arrayValue else { return nil }
            let texts = list.compactMap(\.stringValue)
            return texts.count == list.count ? texts : nil
        }
        var tokens = Set<String>()
        for key in ["illegal_tokens", "illegalTokens"] {
            guard let value = object[key] else { continue }
            if let list = strings(value) {
                tokens.formUnion(list)
            } else if let groups = value.objectValue {
                for list in groups.values.compactMap(strings) { tokens.formUnion(list) }
            }
        }
        return tokens
    }

    /// The fields of Push Kit's answer body: `code` (a string, or a number from some
    /// gateways), `msg` and `requestId`.
    private struct Body {
        var code: String?
        var message: String?
        var requestId: String?

        init(_ response: HTTPResponse) {
            let object = try? JSONValue(json: response.body)
            code = object?["code"]?.stringValue ?? object?["code"]?.intValue.map(String.init)
            message = object?["msg"]?.stringValue
            requestId = object?["requestId"]?.stringValue
        }
    }
}
