import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import ProviderSandbox
import Webhook

/// The sandbox's webhook receiver (plain HTTP on 127.0.0.1), and clients forwarding to it.
extension TestSandbox {
    var receiver: WebhookReceiver { running.sandbox.webhooks }

    /// The receiver's URL for `name` (its rules: see `WebhookReceiver`).
    func webhookURL(_ name: String, host: String = "127.0.0.1") -> String {
        "http://\(host):\(running.httpPort)/webhooks/\(name)"
    }

    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    static func webhookTransport(_ settings: WebhookSettings = WebhookSettings()) -> HTTPTransport {
        HTTPTransport(configuration: settings.transport)
    }

    /// A client of app `demo` forwarding to `url`.
    static func webhookClient(
        url: String, transport: HTTPTransport, secrets: [String] = [secret], allowPrivateNetworks: Bool = true,
        settings: WebhookSettings = WebhookSettings(connectTimeout: TestSandbox.connectTimeout, timeout: .seconds(60)),
        resolver: any HostResolver = SystemHostResolver(), purpose: WebhookClient.Purpose = .forwards
    ) throws -> WebhookClient {
        let destination = try WebhookDestination(url: url, signer: try WebhookSigner(secrets: secrets), allowPrivateNetworks: allowPrivateNetworks)
        return WebhookClient(app: "demo", destination: destination, transport: transport, purpose: purpose, settings: settings, resolver: resolver)
    }

    /// A chat message forwarded for one device of an app in webhook mode.
    static func forward(id: String = UUID().uuidString) -> DispatchRequest {
        DispatchRequest(
            deliveryId: id, eventId: "upstra-\(id)", app: "demo", kind: "message.created", platform: .webhook, deviceId: "device-1",
            token: "", os: .android, data: ["channelId": "general", "actorId": "ann", "messageType": "text"],
            notification: DispatchRequest.Notification(title: "Ann (General)", body: "See you at ten"), ttlSeconds: 600,
            forward: DispatchRequest.WebhookForward(
                source: .upstra, occurredAt: HeraldJSON.parseTimestamp("2026-11-23T10:00:00.250Z")!,
                context: ["channelId": "general", "actorId": "ann"],
                recipient: WebhookRecipient(userId: "bob", deviceId: "device-1", platform: .fcm, token: "fcm-token-1")))
    }
}

/// A resolver that answers from a table, for names the system cannot resolve.
struct TableResolver: HostResolver {
    var table: [String: [String]]

    func addresses(of host: String) async throws -> [NetworkAddress] {
        guard let entries = table[host] else { throw HostResolutionError(host: host, reason: "not in the test table") }
        return entries.compactMap(NetworkAddress.init)
    }
}
