import Crypto
import DispatchKit
import Foundation
import HeraldCrypto
import HeraldModel
import HTTPTransport

/// Web Push for one app: posts each request's RFC 8291 `aes128gcm` body (the whole message,
/// encrypted by the encryption stage for the subscription's keys) to the subscription's
/// endpoint, with `TTL`, `Urgency`, `Topic` where the event collapses, and the app's VAPID
/// authorization; the endpoint's host passes the address guard first and is connected to
/// at the address checked.
public struct WebPushClient: UnicastProviderClient {
    public let app: String
    let key: VAPIDKey
    let subject: String
    let allowPrivateNetworks: Bool
    let sender: AuthorizedSender
    let guarding: AddressGuard
    let now: @Sendable () -> Date

    public init(app: String, key: VAPIDKey, subject: String, allowPrivateNetworks: Bool, transport: HTTPTransport,
                resolver: any HostResolver = SystemHostResolver(), now: @escaping @Sendable () -> Date = Date.init) {
        self.app = app
        self.key = key
        self.subject = subject
        self.allowPrivateNetworks = allowPrivateNetworks
        sender = AuthorizedSender(transport: transport, tokens: nil)
        guarding = AddressGuard(resolver: resolver)
        self.now = now
    }

    public func send(_ request: DispatchRequest) async -> SendResult {
        guard request.data["enc"] == "aes128gcm", let payload = request.data["payload"], let body = Base64URL.decode(payload) else {
            return .failed(.encoding, "delivery \(request.deliveryId) carries no aes128gcm message for a push service")
        }
        guard let endpoint = URL(string: request.token), endpoint.scheme == "https", let host = endpoint.host else {
            return .revoked(code: DispatchCode.encoding, reason: "the subscription's endpoint is not an https URL")
        }
        let address: NetworkAddress
        switch await guarding.check(host: host, allowPrivateNetworks: allowPrivateNetworks) {
        case .success(let checked): address = checked
        case .failure(let refusal):
            guard case .refused = refusal else { return .retry(.transport, refusal.describe("")) }
            return .failed(.addressRefused, "\(refusal.describe("the push service")), which is refused; set apps.\(app).webpush.allowPrivateNetworks: true to allow it")
        }
        let authorization: String
        do { authorization = try key.authorization(endpoint: endpoint, subject: subject, now: now()) } catch {
            return .failed(.credentials, "the VAPID token cannot be made: \(error)")
        }
        var headers: [(String, String)] = [
            ("content-type", "application/octet-stream"),
            ("content-encoding", "aes128gcm"),
            ("ttl", String(max(0, request.ttlSeconds ?? 4 * 7 * 24 * 3600))),
            ("urgency", request.priority == .high ? "high" : "normal"),
            ("authorization", authorization),
        ]
        if let topic = request.collapseKey.flatMap(Self.topic) { headers.append(("topic", topic)) }
        let http = HTTPRequest(method: "POST", url: request.token, headers: headers, body: body, connectAddress: address.description)
        switch await sender.send({ _ in http }) {
        case .result(let result): return result
        case .response(let response): return WebPushAnswer.result(response, now: now())
        }
    }

    /// RFC 8030 §5.4: a topic is at most 32 characters of the base64url alphabet; a longer or
    /// other collapse key is hashed into one.
    static func topic(_ key: String) -> String? {
        guard !key.isEmpty else { return nil }
        let alphabet = { (byte: UInt8) in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
        }
        if key.utf8.count <= 32, key.utf8.allSatisfy(alphabet) { return key }
        return String(Base64URL.encode(Data(SHA256.hash(data: Data(key.utf8)).prefix(24))).prefix(32))
    }
}
