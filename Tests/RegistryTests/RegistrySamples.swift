import Crypto
import Foundation
import HeraldCrypto
import HeraldModel
import Registry

enum RegistrySamples {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-registration-\(UUID().uuidString)")
    }

    static func store() throws -> (RegistrationStore, URL) {
        let directory = temporaryDirectory()
        return (try RegistrationStore(directory: directory), directory)
    }

    static func device(_ id: String, user: String? = "u1", token: String? = nil, pushIds: [String] = [], platform: Platform = .fcm, key: DeviceKey? = nil) -> DeviceRegistration {
        DeviceRegistration(deviceId: id, platform: platform, token: token ?? "token-\(id)", os: .android, userId: user, pushIds: pushIds, locale: "en", key: key)
    }

    static var deviceKey: DeviceKey {
        DeviceKey(keyId: "k1", p256dh: Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation), auth: Base64URL.encode(Data(repeating: 9, count: 16)))
    }

    static func event(_ id: String = UUID().uuidString, app: String = "demo", audience: Audience, context: [String: String] = [:]) -> NotificationEvent {
        NotificationEvent(id: id, app: app, source: .api, kind: "test", occurredAt: Date(), audience: audience, context: context, data: ["n": "1"])
    }
}
