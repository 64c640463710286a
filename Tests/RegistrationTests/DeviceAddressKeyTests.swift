import Foundation
import HeraldModel
import HeraldTestSupport
import Registration
import ServiceKit
import Testing

/// Sudo email: each device registers its own key for an address (it alone holds the private
/// key), so a second device's key does not stop the first from opening its pushes; a device
/// without one gets the address's key; a removed device's key goes with it.
@Suite struct DeviceAddressKeyTests {
    typealias S = RegistrySamples

    static func event() -> NotificationEvent {
        NotificationEvent(
            id: "sudo-email:m1", app: "mail", source: .sudoEmail, kind: "email.received", occurredAt: Date(),
            audience: .emailAddressId("addr-1"), context: ["emailAddressId": "addr-1", "owner": "u1"])
    }

    static func keys(_ recipients: [AudienceResolver.ResolvedDevice]) -> [String: String?] {
        Dictionary(uniqueKeysWithValues: recipients.map { ($0.device.id, $0.addressKey?.keyId) })
    }

    @Test(arguments: StoreBackend.available)
    func eachDeviceGetsItsOwnKeyAndTheOthersTheAddresss(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        for device in ["phone", "tablet", "laptop"] {
            _ = try await commands.run(.registerDevice(app: "mail", registration: S.device(device, user: "u1")))
        }
        _ = try await commands.run(.changeSourceState(app: "mail", change: .addressKey(emailAddressId: "addr-1", keyId: "phone-key", publicKey: S.rsaPublicKeyPEM, ownerUserId: "u1", deviceId: "phone")))
        _ = try await commands.run(.changeSourceState(app: "mail", change: .addressKey(emailAddressId: "addr-1", keyId: "tablet-key", publicKey: S.rsaPublicKeyPEM, ownerUserId: "u1", deviceId: "tablet")))
        let resolver = AudienceResolver(store: store)
        #expect(Self.keys(try await resolver.devices(of: Self.event())) == ["phone": "phone-key", "tablet": "tablet-key", "laptop": nil])
        _ = try await commands.run(.changeSourceState(app: "mail", change: .addressKey(emailAddressId: "addr-1", keyId: "address-key", publicKey: S.rsaPublicKeyPEM, ownerUserId: "u1", deviceId: nil)))
        #expect(Self.keys(try await resolver.devices(of: Self.event())) == ["phone": "phone-key", "tablet": "tablet-key", "laptop": "address-key"])
        // The phone's key goes with the phone; registered again, it gets the address's.
        _ = try await commands.run(.unregisterDevice(app: "mail", deviceId: "phone", userId: nil))
        _ = try await commands.run(.registerDevice(app: "mail", registration: S.device("phone", user: "u1")))
        #expect(Self.keys(try await resolver.devices(of: Self.event()))["phone"] == "address-key")
    }

    @Test(arguments: StoreBackend.available)
    func aDevicesKeyNeedsTheDeviceRegisteredFirst(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        await #expect { _ = try await RegistrationCommands(store: store).run(.changeSourceState(app: "mail", change: .addressKey(emailAddressId: "addr-1", keyId: "k", publicKey: S.rsaPublicKeyPEM, ownerUserId: "u1", deviceId: "unknown"))) } throws: {
            ($0 as? CommandError)?.status == 404 && ($0 as? CommandError)?.detail.contains("deviceId") == true
        }
    }
}
