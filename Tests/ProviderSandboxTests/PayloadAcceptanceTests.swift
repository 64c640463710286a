import _CryptoExtras
import Crypto
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldTestSupport
import Encryption
import FCM
import HMS
import Testing

/// What the encryption stage builds is what the providers accept: every form of payload is
/// sent to the sandbox's FCM and Push Kit emulators over HTTPS/HTTP/2, and the sandbox's
/// size limits agree with Herald's to the byte.
@Suite("Herald's payloads at the provider sandbox")
struct PayloadAcceptanceTests {
    static let devicePrivate = P256.KeyAgreement.PrivateKey()
    static let deviceKey = DeviceKey(
        keyId: "k1", p256dh: Base64URL.encode(devicePrivate.publicKey.x963Representation),
        auth: Base64URL.encode(Data(repeating: 3, count: 16)))
    nonisolated(unsafe) static let rsa = TestKeys.encryptionKey(TestKeys.rsa2048)

    static func delivery(_ platform: Platform, os: DeviceOS, kind: String = "message.created", data: [String: String] = ["channelId": "c1"],
                         key: DeviceKey? = nil, address: Bool = false, hideData: Bool = false) -> Delivery {
        Delivery(
            eventId: "e-\(UUID().uuidString.prefix(6))", app: "demo", source: .upstra, kind: kind, occurredAt: Date(), data: data,
            alert: .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Hi"]),
            options: DeliveryOptions(ttlSeconds: 600, priority: .high, collapseKey: "7", hideData: hideData),
            device: DeviceTarget(id: "d1", platform: platform, token: "tok-\(platform.rawValue)-\(os.rawValue)", os: os, locale: "en", key: key),
            addressKey: address ? AddressKey(emailAddressId: "a1", keyId: "ak", publicKey: rsa.publicKey.derRepresentation.base64EncodedString()) : nil)
    }

    static func request(_ delivery: Delivery) throws -> DispatchRequest {
        guard case .dispatch(let request, _, _) = PayloadBuilder(providers: .herald, sources: .herald).build(delivery) else { throw TestFailure("not dispatched") }
        return request
    }

    func send(_ request: DispatchRequest, client: SandboxClient) async throws -> SandboxClient.Answer {
        switch request.platform {
        case .fcm:
            let body = try JSONSerialization.jsonObject(with: FCMMessage(request).requestBody()) as! [String: Any]
            return try await client.sendFCM(body["message"] as! [String: Any], token: try await client.fcmAccessToken())
        default:
            let body = try JSONSerialization.jsonObject(with: HMSMessage(request).requestBody()) as! [String: Any]
            return try await client.sendHMS(body["message"] as! [String: Any], token: try await client.hmsAccessToken())
        }
    }

    @Test(arguments: [Platform.fcm, .hms])
    func everyFormOfPayloadIsAccepted(platform: Platform) async throws {
        let client = try await SandboxClient.start()
        let forms: [(String, Delivery)] = [
            ("plain android", Self.delivery(platform, os: .android)),
            ("plain ios", Self.delivery(platform, os: .ios)),
            ("aes128gcm android", Self.delivery(platform, os: .android, key: Self.deviceKey)),
            ("aes128gcm ios", Self.delivery(platform, os: .ios, key: Self.deviceKey)),
            ("jwe ios", Self.delivery(platform, os: .ios, address: true)),
            ("hidden", Self.delivery(platform, os: .android, kind: "value.changed", data: ["path": "/a", "value": "1"], hideData: true)),
        ]
        for (name, delivery) in forms {
            let answer = try await send(try Self.request(delivery), client: client)
            #expect(answer.status == 200, "\(name): \(answer.text)")
        }
        #expect(client.running.sandbox.state.messages(provider: platform.rawValue).count == forms.count)
        await client.stop()
    }

    @Test(arguments: [Platform.fcm, .hms])
    func aPayloadAtHeraldsLimitIsAcceptedAndOneByteMoreIsRefused(platform: Platform) async throws {
        let client = try await SandboxClient.start()
        func size(_ request: DispatchRequest) -> Int {
            platform == .fcm ? FCMMessage.dataSize(request.data) : HMSMessage(request).bodyByteCount
        }
        var delivery = Self.delivery(platform, os: .android, kind: "value.changed", data: ["path": "/a", "value": ""])
        delivery.alert = nil
        delivery.data["value"] = String(repeating: "x", count: 4096 - size(try Self.request(delivery)))
        var request = try Self.request(delivery)
        #expect(size(request) == 4096 && request.data["variant"] == nil)
        let atLimit = try await send(request, client: client)
        #expect(atLimit.status == 200, "\(atLimit.text)")

        request.data["value"]! += "x"
        let over = try await send(request, client: client)
        #expect(over.status == 400, "\(over.text)")
        #expect(over.text.contains(platform == .fcm ? "too big" : "80300008"))
        await client.stop()
    }
}
