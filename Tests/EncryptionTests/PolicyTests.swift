import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import FCM
import HMS
import ServiceKit
import Testing

/// The encryption policy and the other reasons a delivery is not sent as is.
struct PolicyTests {
    typealias S = PayloadSamples

    static func decision(_ delivery: Delivery, apps: AppsConfiguration = AppsConfiguration()) -> PayloadBuilder.Decision {
        PayloadBuilder(apps: apps, providers: .herald, sources: .herald).build(delivery, now: S.now)
    }

    static func scheme(_ decision: PayloadBuilder.Decision) -> String? {
        if case .dispatch(_, _, let scheme) = decision { return scheme }
        return "not dispatched"
    }

    @Test func requiredWithoutAnyKeyFailsWithAClearReason() {
        var email = S.sudoEmail(S.device(.fcm, os: .android))
        email.addressKey = nil
        guard case .failed(let failure) = Self.decision(email) else { Issue.record("not failed"); return }
        #expect(failure.reason == .keyMissing)
        #expect(failure.message.contains("required") && failure.message.contains("addr-1"))
    }

    @Test func preferredEncryptsWhenTheDeviceHasAKeyAndSendsPlainWhenNot() {
        var withKey = S.smartIDAuth(S.device(.fcm, os: .android, key: S.deviceKey))
        withKey.options.encryption = .preferred
        #expect(Self.scheme(Self.decision(withKey)) == "aes128gcm")
        var withoutKey = withKey
        withoutKey.device.key = nil
        #expect(Self.scheme(Self.decision(withoutKey)) == nil)
    }

    @Test func noneSendsPlainEvenWithAKey() {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android, key: S.deviceKey))
        delivery.options.encryption = EncryptionPolicy.none
        #expect(Self.scheme(Self.decision(delivery)) == nil)
    }

    @Test func theAppsPolicyAppliesWhenTheEventHasNone() throws {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android))
        delivery.options.encryption = nil
        let apps = AppsConfiguration(apps: ["smartid": AppConfiguration(encryption: .required)])
        guard case .failed(let failure) = Self.decision(delivery, apps: apps) else { Issue.record("not failed"); return }
        #expect(failure.reason == .keyMissing)
    }

    @Test func theAddressKeyWinsOverTheDeviceKey() {
        var email = S.sudoEmail(S.device(.fcm, os: .android, key: S.deviceKey))
        email.options.encryption = .preferred
        #expect(Self.scheme(Self.decision(email)) == "jwe")
    }

    @Test func anEncryptedPushIsDataOnlyOnAndroidAndCarriesANeutralAlertAndMutableContentOnIOS() throws {
        guard case .dispatch(let android, _, _) = Self.decision(S.upstraMessage(S.device(.fcm, os: .android, key: S.deviceKey))),
              case .dispatch(let ios, _, _) = Self.decision(S.upstraMessage(S.device(.fcm, os: .ios, key: S.deviceKey))) else {
            Issue.record("not dispatched"); return
        }
        #expect(android.notification == nil && android.ios == nil)
        #expect(ios.notification == .init(title: nil, body: "New notification"))
        // A chat message: with the default sound.
        #expect(ios.ios == .init(mutableContent: true, contentAvailable: false, sound: "default"))
        let plaintext = try WebPushEncryption.decrypt(Base64URL.decode(ios.data["payload"]!)!, privateKey: S.devicePrivateKey, authSecret: S.deviceAuth)
        let object = try JSONSerialization.jsonObject(with: plaintext) as? [String: Any]
        #expect(object?["alert"] as? [String: String] == ["title": "Ann (Design)", "body": "Lunch at 12?"])
    }

    @Test func aPlainWebcomPushToIOSIsAnAlertPushItsExtensionSees() throws {
        guard case .dispatch(let request, _, _) = Self.decision(S.webcomValue(S.device(.fcm, os: .ios))) else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.notification == .init(title: nil, body: "New notification"))
        #expect(request.ios == .init(mutableContent: true, contentAvailable: false))
        let message = FCMMessage(request, now: S.now)
        #expect(message.apns?.payload?.aps.mutableContent == 1 && message.apns?.payload?.aps.contentAvailable == nil)
        #expect(message.apns?.headers["apns-push-type"] == "alert")
    }

    @Test func theAppsTemplateIsThePlaceholderOfAnExtensionDecodedPush() throws {
        let apps = AppsConfiguration(apps: ["webcom": AppConfiguration(templates: ["herald.placeholder": ["default": .init(title: nil, body: "Updated")]])])
        guard case .dispatch(let request, _, _) = Self.decision(S.webcomValue(S.device(.apns, os: .ios)), apps: apps) else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.notification == .init(title: nil, body: "Updated"))
        #expect(request.ios?.mutableContent == true)
    }

    @Test func aPushWithoutAnAlertOfAnIntegrationWithoutAnExtensionStaysSilentOnIOS() throws {
        var delivery = S.webcomValue(S.device(.fcm, os: .ios))
        delivery.source = .api
        guard case .dispatch(let request, _, _) = Self.decision(delivery) else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.notification == nil)
        #expect(request.ios == .init(mutableContent: false, contentAvailable: true))
    }

    @Test func anEventWithoutAnAlertGetsTheAppsTemplateForItsSourceAndKind() throws {
        var delivery = S.webcomValue(S.device(.fcm, os: .android))
        delivery.alert = nil
        let apps = AppsConfiguration(apps: ["webcom": AppConfiguration(templates: [
            "webcom.value.changed": ["default": .init(title: "{path}", body: "{path} changed")],
        ])])
        guard case .dispatch(let request, _, _) = Self.decision(delivery, apps: apps) else {
            Issue.record("not dispatched")
            return
        }
        #expect(request.notification == .init(title: "/sensors/s1", body: "/sensors/s1 changed"), "\(String(describing: request.notification))")
        // Without that template: no alert, as before.
        guard case .dispatch(let plain, _, _) = Self.decision(delivery) else {
            Issue.record("not dispatched")
            return
        }
        #expect(plain.notification == nil)
    }

    /// An Evernym message's template is the iPhone's alert; Android's handler gets the data.
    @Test func anEvernymTemplateIsTheIPhonesAlertOnly() throws {
        var delivery = S.evernymMessage(S.device(.fcm, os: .ios))
        delivery.alert = nil
        delivery.kind = "message"
        let apps = AppsConfiguration(apps: ["verity": AppConfiguration(templates: [
            "evernym.message": ["default": .init(title: "{msgSenderName}", body: "{msgSenderName} sent you a {msgType}")],
        ])])
        guard case .dispatch(let iPhone, _, _) = Self.decision(delivery, apps: apps) else { Issue.record("not dispatched"); return }
        #expect(iPhone.notification == .init(title: "Faber College", body: "Faber College sent you a credOffer"))
        delivery.device = S.device(.fcm, os: .android)
        guard case .dispatch(let android, _, _) = Self.decision(delivery, apps: apps) else { Issue.record("not dispatched"); return }
        #expect(android.notification == nil)
    }

    @Test func anUnusableRegisteredKeyFailsTheDelivery() {
        let broken = DeviceKey(keyId: "k", p256dh: Base64URL.encode(Data(repeating: 4, count: 97)), auth: S.deviceKey.auth)
        guard case .failed(let failure) = Self.decision(S.smartIDAuth(S.device(.fcm, os: .android, key: broken))) else { Issue.record("not failed"); return }
        #expect(failure.reason == .invalidKey && failure.message.contains("P-384"))
    }

    @Test func aDeliveryWhoseTTLRanOutIsExpired() {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android))
        delivery.options.ttlSeconds = 1
        guard case .expired(let reason) = Self.decision(delivery) else { Issue.record("not expired"); return }
        #expect(reason.contains("TTL"))
    }

    @Test func aTTLOfZeroIsPassedOnAsNowOrNeverNotExpired() {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android))
        delivery.options.ttlSeconds = 0
        guard case .dispatch(let request, _, _) = Self.decision(delivery) else { Issue.record("not dispatched"); return }
        #expect(request.ttlSeconds == 0 && request.expiresAt == nil)
        #expect(FCMMessage(request, now: S.now).android?.ttl == "0s")
    }

    /// A delivery made in code skips the decoders' bound: the builder and the provider
    /// messages must still not trap on the largest TTL an Int holds (it once crash-looped
    /// the encryption service).
    @Test(arguments: [(Platform.fcm, DeviceOS.android), (.fcm, .ios), (.hms, .android)])
    func theLargestTTLAnIntHoldsIsCappedAtFourWeeksNotTrapped(platform: Platform, os: DeviceOS) {
        var delivery = S.smartIDAuth(S.device(platform, os: os))
        delivery.options.ttlSeconds = Int.max
        guard case .dispatch(let request, _, _) = Self.decision(delivery) else { Issue.record("not dispatched"); return }
        #expect(request.ttlSeconds == DeliveryOptions.maximumTTL)
        #expect(request.expiresAt == S.occurredAt.addingTimeInterval(TimeInterval(DeliveryOptions.maximumTTL)))
        let message = FCMMessage(request, now: S.now)
        if os == .ios {
            #expect(message.apns?.headers["apns-expiration"] == String(Int(S.occurredAt.timeIntervalSince1970.rounded(.up)) + DeliveryOptions.maximumTTL))
        } else {
            #expect(message.android?.ttl == "2419198s")
        }
        #expect(HMSMessage(request, now: S.now).android.ttl == "2419198s")
    }

    @Test func anExpiryFarBeyondAnyTTLIsCappedInTheProviderMessages() {
        var request = DispatchRequest(
            deliveryId: "d", eventId: "e", app: "a", kind: "k", platform: .fcm, deviceId: "dev", token: "t", os: .ios, data: [:],
            expiresAt: Date.distantFuture)
        let ios = FCMMessage(request, now: S.now)
        #expect(ios.apns?.headers["apns-expiration"] == String(Int(S.now.timeIntervalSince1970) + DeliveryOptions.maximumTTL))
        request.os = .android
        #expect(FCMMessage(request, now: S.now).android?.ttl == "2419200s")
        request.expiresAt = Date(timeIntervalSince1970: 1e300)
        #expect(FCMMessage(request, now: S.now).android?.ttl == "2419200s")
    }

    @Test func theRequestCarriesTheExpiryPriorityAndCollapseKey() {
        guard case .dispatch(let request, _, _) = Self.decision(S.smartIDAuth(S.device(.fcm, os: .android))) else { Issue.record("not dispatched"); return }
        #expect(request.expiresAt == S.occurredAt.addingTimeInterval(120))
        #expect(request.priority == .high, "critical events default to high priority")
        #expect(request.attempt == 1)
        #expect(request.deliveryId == Delivery.makeId(app: "smartid", eventId: "9f1c7a4e-smartid", deviceId: "device-fcm-android"))
    }

    @Test(arguments: ["herald", "kind", "payload"])
    func dataKeysHeraldReservesFailTheDelivery(key: String) {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android))
        delivery.data[key] = "x"
        guard case .failed(let failure) = Self.decision(delivery) else { Issue.record("not failed"); return }
        #expect(failure.reason == .reservedDataKey && failure.message.contains(key))
    }

    @Test func dataKeysFCMReservesFailOnlyWhenSentInClear() {
        var delivery = S.smartIDAuth(S.device(.fcm, os: .android))
        delivery.data["google.x"] = "1"
        guard case .failed(let failure) = Self.decision(delivery) else { Issue.record("not failed"); return }
        #expect(failure.message.contains("FCM"))
        delivery.device.key = S.deviceKey
        #expect(Self.scheme(Self.decision(delivery)) == "aes128gcm")
        delivery.device.key = nil
        delivery.device.platform = .hms
        #expect(Self.scheme(Self.decision(delivery)) == nil, "Push Kit has no such rule")
    }
}
