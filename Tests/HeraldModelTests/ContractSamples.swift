import Foundation
import HeraldModel

/// One representative value of every contract; the golden fixtures are their encodings.
enum ContractSamples {
    static let occurredAt = HeraldJSON.parseTimestamp("2026-11-21T09:30:00.250Z")!

    static let event = NotificationEvent(
        id: "msg-7f3a", app: "demo", source: .smartID, kind: "auth", occurredAt: occurredAt,
        audience: .pushIds(["push-1", "push-2"]),
        context: ["requestor": "Example Bank"],
        data: ["messageId": "msg-7f3a", "requestor": "Example Bank", "type": "AUTH"],
        alert: .template(name: "smartid.auth", args: ["requestor": "Example Bank"]),
        options: DeliveryOptions(ttlSeconds: 120, priority: .high, collapseKey: "auth", critical: true, encryption: .preferred))

    static let device = DeviceTarget(
        id: "device-1", platform: .fcm, token: "fcm-token-1", os: .ios, userId: "user-1", locale: "et-EE",
        key: DeviceKey(keyId: "k1", p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg"))

    static let delivery = Delivery(event: event, device: device)

    static let emailDelivery = Delivery(
        eventId: "mail-1", app: "demo", source: .sudoEmail, kind: "email.received", occurredAt: occurredAt,
        context: ["sudoId": "sudo-1", "emailAddressId": "addr-1"],
        data: ["messageId": "mail-1"], options: DeliveryOptions(encryption: .required),
        device: DeviceTarget(id: "device-2", platform: .hms, token: "hms-token-2", os: .android, userId: "owner-1"),
        addressKey: AddressKey(emailAddressId: "addr-1", keyId: "rsa-1", publicKey: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"))

    static let dispatch = DispatchRequest(
        deliveryId: delivery.deliveryId, eventId: "msg-7f3a", app: "demo", kind: "auth", platform: .fcm,
        deviceId: "device-1", token: "fcm-token-1", os: .ios,
        data: ["herald": "1", "enc": "aes128gcm", "kid": "k1", "payload": "c2VjcmV0"],
        notification: DispatchRequest.Notification(title: "Herald", body: "You have a new notification"),
        ttlSeconds: 120, priority: .high, collapseKey: "auth",
        ios: DispatchRequest.IOSHints(mutableContent: true),
        expiresAt: HeraldJSON.parseTimestamp("2026-11-21T09:32:00.250Z"), attempt: 2,
        firstAttemptAt: HeraldJSON.parseTimestamp("2026-11-21T09:30:01Z"))

    /// A type-3 Evernym sponsee's delivery, forwarded to the sponsor's endpoint.
    static let webhookDelivery = Delivery(
        eventId: "msg-9c1e", app: "verity", source: .evernym, kind: "message", occurredAt: occurredAt,
        context: ["sponseeId": "sponsee-7"], data: ["msgId": "msg-9c1e", "msgType": "credOffer", "relationshipDid": "did:sov:abc"],
        device: DeviceTarget(
            id: "sponsee:sponsee-7", platform: .webhook, token: "", os: .other, userId: "sponsee-7",
            recipient: WebhookRecipient(sponseeId: "sponsee-7", sponseeDetails: #"{"pushId":"opaque"}"#)))

    static let webhookDispatch = DispatchRequest(
        deliveryId: webhookDelivery.deliveryId, eventId: "msg-9c1e", app: "verity", kind: "message", platform: .webhook,
        deviceId: "sponsee:sponsee-7", token: "", os: .other, data: webhookDelivery.data, ttlSeconds: 600,
        expiresAt: HeraldJSON.parseTimestamp("2026-11-21T09:40:00.250Z"),
        forward: DispatchRequest.WebhookForward(
            source: .evernym, occurredAt: occurredAt, context: ["sponseeId": "sponsee-7"],
            recipient: WebhookRecipient(sponseeId: "sponsee-7", sponseeDetails: #"{"pushId":"opaque"}"#)))

    static let outcome = Outcome(
        deliveryId: delivery.deliveryId, eventId: "msg-7f3a", app: "demo", status: .revoked,
        reason: "the token is no longer registered", providerCode: "UNREGISTERED",
        at: HeraldJSON.parseTimestamp("2026-11-21T09:30:02.125Z")!)

    static let tokenRevoked = TokenRevoked(
        app: "demo", platform: .fcm, token: "fcm-token-1", reason: "UNREGISTERED", deviceId: "device-1",
        failedSendAt: HeraldJSON.parseTimestamp("2026-11-21T09:30:02Z")!, deliveryId: delivery.deliveryId, eventId: "msg-7f3a")

    static let commandError = CommandError(code: "invalid-key", detail: "p256dh is not a point on P-256", status: 422)

    static let preferenceCommand = PreferenceCommand.setRule(
        app: "sudo", deviceId: "device-1", service: "sudo-email",
        rule: NotificationConfiguration.Rule(field: .sudoId, value: "sudo-41d2"), enabled: false)

    static let preferenceReply = PreferenceReply(configuration: NotificationConfiguration(entries: [
        .init(service: "sudo-email", enabled: true),
        .init(service: "sudo-email", enabled: false, rule: .init(field: .sudoId, value: "sudo-41d2")),
    ]))

    static let registrationCommand = RegistrationCommand.registerDevice(app: "chat", registration: DeviceRegistration(
        deviceId: "device-1", platform: .fcm, token: "fcm-token-1", os: .ios, userId: "user-1", pushIds: ["profile-1"], locale: "et-EE",
        key: DeviceKey(keyId: "key-1", p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg")))

    static let sourceStateCommand = RegistrationCommand.changeSourceState(app: "sponsor", change: .sponsee(sponseeId: "sponsee-1", type: 4, value: "FCM:fcm-token-1"))

    static let eventStatusCommand = RegistrationCommand.eventStatus(app: "demo", eventId: "msg-7f3a")
    static let eventStatusReply = RegistrationReply(event: EventStatus(eventId: "msg-7f3a", resolved: true, deliveries: [
        DeliveryStatus(deliveryId: delivery.deliveryId, status: .delivered, at: occurredAt.addingTimeInterval(2), updates: 2),
        DeliveryStatus(deliveryId: "d-2", status: .revoked, reason: "device device-2 removed: UNREGISTERED", providerCode: "UNREGISTERED", at: occurredAt.addingTimeInterval(1)),
    ]))
    static let registrationReply = RegistrationReply(removed: false, detail: "device device-1 belongs to another user, not user-2: nothing changed")
}
