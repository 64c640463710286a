import Foundation
import HeraldModel

/// The body of a callback, Standard Webhooks' shape like a forward's: `type` (the callback
/// event, `device.revoked`), `timestamp` (when it happened) and `data`, its fields (`app`
/// among them). The same on every attempt.
public struct CallbackPayload: Codable, Sendable, Hashable {
    public var type: String
    public var timestamp: Date
    public var data: [String: String]

    /// The callback a `Platform.callback` request carries (`DispatchRequest.callback`).
    public init(_ request: DispatchRequest) {
        type = request.kind
        timestamp = request.acceptedAt ?? request.firstAttemptAt ?? Date(timeIntervalSince1970: 0)
        data = request.data
    }

    /// The JSON body (sorted keys, timestamps with milliseconds).
    public func body() throws -> Data {
        try HeraldJSON.encode(self)
    }
}
