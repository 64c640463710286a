import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldTestSupport
import Encryption
import APNs
import FCM
import HMS
import Testing

/// How each upstream's pushes are shown: a Smart ID request on an iPhone is a time-sensitive
/// alert, an Evernym message to an `FCM:` com method works on Android and iOS alike, chat
/// messages are high-priority alerts with a sound and Push Kit's `IM` category, Upstra's other
/// message types are "Special message", and a long text is shortened to what the provider
/// takes instead of being refused.
struct PresentationTests {
    typealias S = PayloadSamples

    static func request(_ delivery: Delivery, apps: AppsConfiguration = AppsConfiguration()) throws -> DispatchRequest {
        guard case .dispatch(let request, _, _) = PayloadBuilder(apps: apps, providers: .herald, sources: .herald).build(delivery, now: S.now) else {
            throw TestFailure("not dispatched: \(PayloadBuilder(apps: apps, providers: .herald, sources: .herald).build(delivery, now: S.now))")
        }
        return request
    }

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func smartID(_ device: DeviceTarget, kind: String = "auth") -> Delivery {
        var delivery = S.smartIDAuth(device)
        delivery.kind = kind
        delivery.data["pushId"] = "74db355b"
        delivery.options.priority = .high
        return delivery
    }

    static func evernym(_ device: DeviceTarget, sender: String? = nil) -> Delivery {
        var data = ["msgId": "uid-7", "msgType": "credOffer", "relationshipDid": "did:sov:abc"]
        data["msgSenderName"] = sender
        return Delivery(eventId: "evernym:uid-7:0011", app: "verity", source: .evernym, kind: "message", occurredAt: S.occurredAt, data: data, device: device)
    }

    static func upstra(_ device: DeviceTarget, type: String, text: String? = nil) -> Delivery {
        var args = ["channel": "Design", "user": "Ann", "messageType": type]
        args["text"] = text
        return Delivery(
            eventId: "upstra:1", app: "chat", source: .upstra, kind: "message.created", occurredAt: S.occurredAt,
            context: ["channelId": "ch-9", "actorId": "u-2", "messageType": type], data: ["channelId": "ch-9", "actorId": "u-2", "messageType": type],
            alert: .template(name: "message.created", args: args), device: device)
    }

    @Test(arguments: [("auth", "Example Bank: confirm your sign-in"), ("sign", "Example Bank: sign a document")])
    func aSmartIDRequestOnAPNsIsATimeSensitiveAlert(_ kind: String, _ body: String) throws {
        let request = try Self.request(Self.smartID(S.device(.apns, os: .ios), kind: kind))
        let message = APNsMessage(request, now: S.now)
        let headers = Dictionary(message.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        #expect(headers["apns-push-type"] == "alert" && headers["apns-priority"] == "10", "\(headers)")
        let aps = try #require(try Self.json(message.body)["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == body, "\(aps)")
        #expect(aps["interruption-level"] as? String == "time-sensitive" && aps["mutable-content"] as? Int == 1 && aps["content-available"] == nil, "\(aps)")
        #expect(try Self.json(message.body)["pushId"] as? String == "74db355b")
    }

    @Test func aSmartIDRequestToAnIPhoneOnFirebaseIsTheSameAlert() throws {
        let request = try Self.request(Self.smartID(S.device(.fcm, os: .ios)))
        let body = try Self.json(FCMMessage(request, now: S.now).requestBody())
        let message = try #require(body["message"] as? [String: Any])
        #expect((message["notification"] as? [String: Any])?["body"] as? String == "Example Bank: confirm your sign-in", "\(message)")
        let apns = try #require(message["apns"] as? [String: Any])
        #expect((apns["headers"] as? [String: String])?["apns-push-type"] == "alert", "\(apns)")
        let aps = try #require((apns["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["interruption-level"] as? String == "time-sensitive" && aps["mutable-content"] as? Int == 1, "\(aps)")
    }

    @Test func aSmartIDRequestToAnAndroidPhoneStaysData() throws {
        let request = try Self.request(Self.smartID(S.device(.fcm, os: .android)))
        #expect(request.notification == nil && request.ios == nil && request.priority == .high)
        #expect(request.data["pushId"] == "74db355b")
    }

    @Test func theAppsTemplateRendersTheIPhonesAlert() throws {
        let apps = try AppsConfiguration.parse("""
            apps:
              smartid:
                templates:
                  smartid.auth:
                    et: { body: "{requestor}: kinnita sisselogimine" }
            """)
        var delivery = Self.smartID(S.device(.apns, os: .ios))
        delivery.device.locale = "et"
        #expect(try Self.request(delivery, apps: apps).notification?.body == "Example Bank: kinnita sisselogimine")
        delivery.device = S.device(.fcm, os: .android)
        #expect(try Self.request(delivery, apps: apps).notification == nil, "Android's handler still gets the data alone")
    }

    @Test func anEvernymMessageToAComMethodWorksOnAndroidAndIOS() throws {
        let token = DeviceTarget(id: "token:fcm:1", platform: .fcm, token: "evernym-token", os: .other)
        for (sender, title) in [("Faber College", "Faber College" as String?), (nil, nil)] {
            let request = try Self.request(Self.evernym(token, sender: sender))
            let message = try #require(try Self.json(FCMMessage(request, now: S.now).requestBody())["message"] as? [String: Any])
            #expect(message["notification"] == nil, "Android's handler runs: \(message)")
            #expect((message["data"] as? [String: String])?["msgId"] == "uid-7")
            let apns = try #require(message["apns"] as? [String: Any])
            let headers = try #require(apns["headers"] as? [String: String])
            #expect(headers["apns-push-type"] == "alert" && headers["apns-priority"] == "10", "\(headers)")
            let aps = try #require((apns["payload"] as? [String: Any])?["aps"] as? [String: Any])
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["body"] as? String == "New message" && alert["title"] as? String == title, "\(alert)")
            #expect(aps["mutable-content"] as? Int == 1 && aps["content-available"] == nil, "\(aps)")
        }
    }

    @Test(arguments: ["file", "video", "custom"])
    func anUpstraMessageOfAnotherTypeIsASpecialMessage(_ type: String) throws {
        #expect(try Self.request(Self.upstra(S.device(.fcm, os: .android), type: type)).notification?.body == "Special message")
    }

    @Test func textAndImageKeepTheirOwnBodies() throws {
        #expect(try Self.request(Self.upstra(S.device(.fcm, os: .android), type: "text", text: "Hi")).notification?.body == "Hi")
        #expect(try Self.request(Self.upstra(S.device(.fcm, os: .android), type: "image")).notification?.body == "Image Message")
    }

    @Test(arguments: [(Platform.fcm, DeviceOS.android), (.fcm, .ios), (.hms, .android), (.apns, .ios)])
    func aLongTextIsShortenedToWhatTheProviderTakes(_ platform: Platform, _ os: DeviceOS) throws {
        let text = String(repeating: "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. ", count: 60)
        let request = try Self.request(Self.upstra(S.device(platform, os: os), type: "text", text: text))
        let body = try #require(request.notification?.body)
        #expect(body.hasSuffix("\u{2026}") && text.hasPrefix(String(body.dropLast())), "cut on a character boundary")
        #expect(try #require(ProviderRegistry.herald[platform]).fits(request, now: S.now))
        var longer = request
        longer.notification?.body = String(text.prefix(body.count + 20)) + "\u{2026}"
        #expect(!(try #require(ProviderRegistry.herald[platform]).fits(longer, now: S.now)), "the longest text that fits")
    }

    @Test func anIPhonesPushOnFirebaseIsMeasuredAsTheAPNsBodyFCMMakes() throws {
        // Data that fits FCM's 4,096 bytes but not, with quotes escaped, Apple's.
        var request = DispatchRequest(
            deliveryId: "d", eventId: "e", app: "a", kind: "k", platform: .fcm, deviceId: "d", token: "t", os: .android,
            data: ["v": String(repeating: "\"", count: 3000)])
        #expect(FCMMessage.fits(request))
        request.os = .ios
        #expect(!FCMMessage.fits(request))
    }

    @Test func chatAlertsAreHighPriorityWithASoundAndPushKitsIMCategory() throws {
        let android = try Self.request(Self.upstra(S.device(.fcm, os: .android), type: "text", text: "Hi"))
        #expect(android.priority == .high)
        let iPhone = try Self.request(Self.upstra(S.device(.apns, os: .ios), type: "text", text: "Hi"))
        #expect(try Self.json(APNsMessage(iPhone, now: S.now).body)["aps"].flatMap { ($0 as? [String: Any])?["sound"] } as? String == "default")
        let huawei = try Self.request(Self.upstra(S.device(.hms, os: .android), type: "text", text: "Hi"))
        let body = try Self.json(HMSMessage(huawei, now: S.now).requestBody())
        let notification = try #require(((body["message"] as? [String: Any])?["android"] as? [String: Any])?["notification"] as? [String: Any])
        #expect(notification["category"] as? String == "IM" && notification["importance"] as? String == "NORMAL", "\(notification)")
    }

    @Test func aSilentPushHasNoCategorySoundOrInterruptionLevel() throws {
        let request = try Self.request(Self.smartID(S.device(.hms, os: .android)))
        let body = try Self.json(HMSMessage(request, now: S.now).requestBody())
        #expect(((body["message"] as? [String: Any])?["android"] as? [String: Any])?["notification"] == nil, "\(body)")
    }

    @Test func aWebcomValueOverTheLimitArrivesAsTooBig() throws {
        let delivery = Delivery(
            eventId: "webcom:1", app: "wc", source: .webcom, kind: "value.changed", occurredAt: S.occurredAt,
            data: ["path": "/docs/d1", "appId": "wc", "value": String(repeating: "x", count: 100_000)], device: S.device(.fcm, os: .ios))
        guard case .dispatch(let request, let variant, _) = PayloadBuilder(providers: .herald, sources: .herald).build(delivery, now: S.now) else {
            Issue.record("not dispatched"); return
        }
        #expect(variant == .tooBig && request.data["value"] == nil && request.data["path"] == "/docs/d1")
    }
}
