import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import Testing

/// A provider declares the shape of its payload (`ProviderDescriptor.payloadShape`), and the
/// encryption stage follows it rather than a platform's name: the data map in the provider's
/// own message, a forward to a server, or the whole message encrypted for the device's
/// registered Web Push key (a push service carries bytes it cannot read).
struct PayloadShapeTests {
    typealias S = PayloadSamples

    /// A provider whose requests are the device's encrypted message, as a Web Push service's.
    struct SealedProvider: ProviderDescriptor {
        let platform: Platform = "sealed"
        let registersDevices = true
        let payloadShape = PayloadShape.encryptedMessage
        func validateSettings(of app: String, _ configuration: AppConfiguration) throws {}
    }

    static let providers = ProviderRegistry.herald.adding([SealedProvider()])

    static func decision(_ delivery: Delivery) -> PayloadBuilder.Decision {
        PayloadBuilder(providers: providers, sources: .herald).build(delivery, now: S.now)
    }

    @Test func anEncryptedMessageIsEncryptedForTheDeviceEvenWhenTheEventSaysNone() throws {
        var delivery = S.smartIDAuth(S.device("sealed", os: .web, key: S.deviceKey))
        delivery.options.encryption = EncryptionPolicy.none
        guard case .dispatch(let request, _, let scheme) = Self.decision(delivery) else { Issue.record("not dispatched: \(Self.decision(delivery))"); return }
        #expect(scheme == "aes128gcm")
        #expect(request.data["enc"] == "aes128gcm" && request.data["payload"] != nil)
    }

    @Test func anEncryptedMessageUsesTheDevicesKeyOverAnAddressKey() throws {
        let delivery = S.sudoEmail(S.device("sealed", os: .web, key: S.deviceKey))
        #expect(delivery.addressKey != nil)
        guard case .dispatch(_, _, let scheme) = Self.decision(delivery) else { Issue.record("not dispatched"); return }
        #expect(scheme == "aes128gcm")
    }

    @Test func anEncryptedMessageWithoutAKeyFailsSayingSo() {
        let delivery = S.smartIDAuth(S.device("sealed", os: .web))
        guard case .failed(let failure) = Self.decision(delivery) else { Issue.record("not failed"); return }
        #expect(failure.reason == .keyMissing)
        #expect(failure.message.contains("sealed"), "\(failure.message)")
    }

    @Test func theWebhookProviderForwards() {
        #expect(ProviderRegistry.herald[.webhook]?.payloadShape == .forward)
        #expect(ProviderRegistry.herald[.fcm]?.payloadShape == .dataMap)
    }
}
