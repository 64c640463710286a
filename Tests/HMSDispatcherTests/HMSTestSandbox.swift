import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HMS
import HTTPTransport
import HMSEmulation

/// Push Kit clients pointed at a test sandbox.
extension TestSandbox {
    var hmsAppId: String { running.sandbox.emulator(HMSEmulator.self)!.demoClient!.clientId }

    func transport(streams: Int = 100) -> HTTPTransport {
        HTTPTransport(configuration: HTTPTransportConfiguration(name: "test", maxConcurrentStreams: streams, connectTimeout: Self.connectTimeout, caFile: caFile))
    }

    func hmsClient(secret: String? = nil, transport: HTTPTransport) -> HMSClient {
        let demo = running.sandbox.emulator(HMSEmulator.self)!.demoClient!
        return HMSClient(
            app: "demo", appId: demo.clientId, clientId: demo.clientId, clientSecret: secret ?? demo.clientSecret,
            endpoint: endpoint, tokenEndpoint: "\(endpoint)/oauth2/v3/token", transport: transport)
    }

    /// When the test requests expire: one instant for all, as deliveries of one event share
    /// theirs (the event's time plus its TTL).
    static let hmsExpiry = Date().addingTimeInterval(600)

    /// A plain HMS dispatch request of event `event` for `token`.
    static func hmsRequest(token: String, event: String = UUID().uuidString, id: String = UUID().uuidString, encrypted: Bool = false) -> DispatchRequest {
        let data = encrypted
            ? ["herald": "1", "enc": "aes128gcm", "kid": "k1", "payload": "AAAA\(id)"]
            : ["herald": "1", "event": event, "kind": "value.changed"]
        return DispatchRequest(
            deliveryId: id, eventId: event, app: "demo", kind: "value.changed", platform: .hms, deviceId: "d-\(id)",
            token: token, os: .android, data: data, ttlSeconds: 600, expiresAt: hmsExpiry)
    }
}
