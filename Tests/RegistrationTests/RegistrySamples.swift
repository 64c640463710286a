import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Registration

enum RegistrySamples {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-registration-\(UUID().uuidString)")
    }

    /// A new, empty store of `backend` (SQLite in a new directory, PostgreSQL in a new database).
    static func store(_ backend: StoreBackend = .sqlite) async throws -> (any RegistrationStore, URL) {
        let directory = temporaryDirectory()
        switch backend {
        case .sqlite: return (try SQLiteRegistrationStore(directory: directory), directory)
        case .postgres: return (try await PostgresRegistrationStore(database: TestDatabase.fresh()), directory)
        }
    }

    static func device(_ id: String, user: String? = "u1", token: String? = nil, pushIds: [String] = [], platform: Platform = .fcm, key: DeviceKey? = nil) -> DeviceRegistration {
        DeviceRegistration(deviceId: id, platform: platform, token: token ?? "token-\(id)", os: .android, userId: user, pushIds: pushIds, locale: "en", key: key)
    }

    /// An RSA public key as an address-key registration sends it (made once per run).
    static let rsaPublicKeyPEM: String = (try? _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation) ?? ""

    static var deviceKey: DeviceKey {
        DeviceKey(keyId: "k1", p256dh: Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation), auth: Base64URL.encode(Data(repeating: 9, count: 16)))
    }

    static func event(_ id: String = UUID().uuidString, app: String = "demo", audience: Audience, context: [String: String] = [:]) -> NotificationEvent {
        NotificationEvent(id: id, app: app, source: .api, kind: "test", occurredAt: Date(), audience: audience, context: context, data: ["n": "1"])
    }
}
