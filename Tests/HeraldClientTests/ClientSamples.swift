import Foundation
import HeraldClient
import HeraldModel
import Encryption
import Testing

/// Each integration's event as the gateway's adapters shape it (the same kinds, data keys and
/// options), and the typed event the kit must decode from each variant of its payload.
struct ClientCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// The delivery for a device (the event's data, options and alert).
    var delivery: @Sendable (DeviceTarget, HeraldModel.AddressKey?) -> Delivery
    var variant: HeraldNotification.Variant
    var event: HeraldEvent
    /// The alert rendered for the device (inside encrypted payloads only).
    var alert: HeraldAlert? = nil
    /// How it may travel: in clear, to the device key, to the address key.
    var schemes: [ClientScheme] = [.plain, .aes128gcm]
    var testDescription: String { name }
}

enum ClientScheme: String, Sendable, CaseIterable {
    case plain, aes128gcm, jwe
}

enum ClientSamples {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// The app's keys, made by the kit as an app would make them.
    static let deviceKey = DeviceKeyPair.generate(keyId: "phone-key-1")
    static let addressKey = try! AddressKeyPair.generate(keyId: "address-key-1")
    static let keyring = HeraldKeyring(deviceKeys: [deviceKey], addressKeys: [addressKey])

    /// The device as Registration resolves it, with the kit's key registered.
    static func device(_ platform: Platform, os: DeviceOS = .android, encrypted: Bool) -> DeviceTarget {
        let key = deviceKey.registration
        return DeviceTarget(
            id: "device-\(platform.rawValue)", platform: platform, token: "token-\(platform.rawValue)", os: os, userId: "user-1",
            locale: "en", key: encrypted ? HeraldModel.DeviceKey(keyId: key.keyId, p256dh: key.p256dh, auth: key.auth) : nil)
    }

    /// The address key as Registration stores it (SPKI DER, base64) from the kit's registration.
    static var registeredAddressKey: HeraldModel.AddressKey {
        HeraldModel.AddressKey(emailAddressId: "addr-1", keyId: addressKey.keyId, publicKey: addressKey.registration.publicKey)
    }

    static func event(
        _ id: String, _ source: EventSource, _ kind: String, data: [String: String], context: [String: String] = [:],
        alert: Alert? = nil, options: DeliveryOptions = DeliveryOptions()
    ) -> @Sendable (DeviceTarget, HeraldModel.AddressKey?) -> Delivery {
        { device, addressKey in
            Delivery(
                eventId: "\(source.rawValue):\(id)", app: "kit", source: source, kind: kind, occurredAt: now.addingTimeInterval(-1),
                context: context, data: data, alert: alert, options: options, device: device, addressKey: addressKey)
        }
    }

    static let bigText = String(repeating: "x", count: 6000)

    static let cases: [ClientCase] = [
        ClientCase(
            name: "Smart ID auth",
            delivery: event("sid-1", .smartID, "auth", data: ["messageId": "sid-1", "requestor": "Bank", "type": "AUTH"],
                            context: ["requestor": "Bank", "pushId": "p-1"], options: DeliveryOptions(ttlSeconds: 90, priority: .high)),
            variant: .full, event: .authenticationRequest(.init(type: .authentication, messageId: "sid-1", requestor: "Bank"))),
        ClientCase(
            name: "Smart ID sign",
            delivery: event("sid-2", .smartID, "sign", data: ["messageId": "sid-2", "requestor": "Notary", "type": "SIGN"]),
            variant: .full, event: .authenticationRequest(.init(type: .signing, messageId: "sid-2", requestor: "Notary"))),
        ClientCase(
            name: "Evernym sponsor message",
            delivery: event("ev-1", .evernym, "message", data: ["msgId": "ev-1", "msgType": "credOffer", "relationshipDid": "did:x:1", "msgSenderName": "Faber"],
                            context: ["sponseeId": "s-1"]),
            variant: .full, event: .sponsorMessage(.init(msgId: "ev-1", msgType: "credOffer", relationshipDid: "did:x:1", senderName: "Faber"))),
        ClientCase(
            name: "Upstra channel created",
            delivery: event("up-1", .upstra, "channel.created", data: ["channelId": "ch-1", "actorId": "ann"], context: ["channelId": "ch-1", "actorId": "ann"],
                            alert: .template(name: "channel.created", args: ["channel": "Design", "user": "Ann"])),
            variant: .full, event: .chatChannelCreated(.init(channelId: "ch-1", actorId: "ann", messageType: nil)),
            alert: HeraldAlert(title: "Design", body: "You're now member of Design!")),
        ClientCase(
            name: "Upstra member joined",
            delivery: event("up-2", .upstra, "member.joined", data: ["channelId": "ch-1", "actorId": "bob"], context: ["channelId": "ch-1", "actorId": "bob"],
                            alert: .template(name: "member.joined", args: ["channel": "Design", "user": "Bob"])),
            variant: .full, event: .chatMemberJoined(.init(channelId: "ch-1", actorId: "bob", messageType: nil)),
            alert: HeraldAlert(title: "Bob", body: "Bob has joined Design")),
        ClientCase(
            name: "Upstra text message",
            delivery: event("up-3", .upstra, "message.created", data: ["channelId": "ch-1", "actorId": "ann", "messageType": "text"],
                            context: ["channelId": "ch-1", "actorId": "ann", "messageType": "text"],
                            alert: .template(name: "message.created", args: ["channel": "Design", "user": "Ann", "text": "Lunch?", "messageType": "text"])),
            variant: .full, event: .chatMessage(.init(channelId: "ch-1", actorId: "ann", messageType: .text)),
            alert: HeraldAlert(title: "Ann (Design)", body: "Lunch?")),
        ClientCase(
            name: "Upstra image message",
            delivery: event("up-4", .upstra, "message.created", data: ["channelId": "ch-1", "actorId": "ann", "messageType": "image"],
                            context: ["channelId": "ch-1", "actorId": "ann", "messageType": "image"],
                            alert: .template(name: "message.created", args: ["channel": "Design", "user": "Ann", "messageType": "image"])),
            variant: .full, event: .chatMessage(.init(channelId: "ch-1", actorId: "ann", messageType: .image)),
            alert: HeraldAlert(title: "Ann (Design)", body: "Image Message")),
        ClientCase(
            name: "Sudo email received",
            delivery: email(subject: "Lunch?"),
            variant: .full, event: .emailReceived(.init(
                emailAddressId: "addr-1", sudoId: "sudo-1", messageId: "mail-1", owner: "owner-1", from: "alice@example.com",
                subject: "Lunch?", receivedAt: "2026-11-21T10:00:00Z")), schemes: [.aes128gcm, .jwe]),
        ClientCase(
            name: "Sudo email too big",
            delivery: email(subject: String(repeating: "s", count: 2048), from: String(repeating: "f", count: 1000) + "@example.com"),
            variant: .tooBig, event: .emailReceived(.init(
                emailAddressId: "addr-1", sudoId: "sudo-1", messageId: "mail-1", owner: nil, from: nil, subject: nil, receivedAt: nil)),
            schemes: [.aes128gcm, .jwe]),
        ClientCase(
            name: "Webcom value changed",
            delivery: event("wc-1", .webcom, "value.changed", data: ["path": "/sensors/s1", "value": #"{"t":21}"#, "appId": "demo"], context: ["path": "/sensors/s1"]),
            variant: .full, event: .valueChanged(.init(path: "/sensors/s1", content: .value(#"{"t":21}"#), appId: "demo"))),
        ClientCase(
            name: "Webcom value changed with hidden data",
            delivery: event("wc-2", .webcom, "value.changed", data: ["path": "/sensors/s1", "value": #"{"t":21}"#, "appId": "demo"], context: ["path": "/sensors/s1"],
                            options: DeliveryOptions(hideData: true)),
            variant: .hidden, event: .valueChanged(.init(path: "/sensors/s1", content: .hidden, appId: "demo"))),
        ClientCase(
            name: "Webcom value changed too big",
            delivery: event("wc-3", .webcom, "value.changed", data: ["path": "/sensors/s1", "value": "\"\(bigText)\""], context: ["path": "/sensors/s1"]),
            variant: .tooBig, event: .valueChanged(.init(path: "/sensors/s1", content: .tooBig))),
        ClientCase(
            name: "Webcom children updated",
            delivery: event("wc-4", .webcom, "children.updated", data: ["path": "/boards/1", "added": #"{"c1":{"t":"New"}}"#, "removed": #"{"c0":null}"#],
                            context: ["path": "/boards/1"]),
            variant: .full, event: .childrenUpdated(.init(path: "/boards/1", content: .children(added: #"{"c1":{"t":"New"}}"#, changed: nil, removed: #"{"c0":null}"#)))),
        ClientCase(
            name: "Webcom children updated, only keys",
            delivery: event("wc-5", .webcom, "children.updated", data: ["path": "/boards/1", "added": #"{"c2":"\#(bigText)","c1":1}"#, "changed": #"{"c7":true}"#],
                            context: ["path": "/boards/1"]),
            variant: .onlyKeys, event: .childrenUpdated(.init(path: "/boards/1", content: .keys(added: ["c1", "c2"], changed: ["c7"], removed: [])))),
        ClientCase(
            name: "Webcom children updated too big",
            delivery: event("wc-6", .webcom, "children.updated", data: ["path": "/boards/1", "added": manyChildren],
                            context: ["path": "/boards/1"]),
            variant: .tooBig, event: .childrenUpdated(.init(path: "/boards/1", content: .tooBig))),
        ClientCase(
            name: "Webcom children updated with hidden data",
            delivery: event("wc-7", .webcom, "children.updated", data: ["path": "/boards/1", "added": #"{"c1":1}"#], context: ["path": "/boards/1"],
                            options: DeliveryOptions(hideData: true)),
            variant: .hidden, event: .childrenUpdated(.init(path: "/boards/1", content: .hidden))),
        ClientCase(
            name: "Webcom subscription revoked",
            delivery: event("wc-8", .webcom, "subscription.revoked", data: ["path": "/boards/1", "reason": "permission denied", "appId": "demo"],
                            context: ["path": "/boards/1"]),
            variant: .full, event: .subscriptionRevoked(.init(path: "/boards/1", reason: "permission denied", appId: "demo"))),
        ClientCase(
            name: "Webcom subscription revoked with hidden data",
            delivery: event("wc-9", .webcom, "subscription.revoked", data: ["path": "/boards/1", "reason": "permission denied", "appId": "demo"],
                            context: ["path": "/boards/1"], options: DeliveryOptions(hideData: true)),
            variant: .hidden, event: .subscriptionRevoked(.init(path: "/boards/1", reason: nil, appId: "demo"))),
        ClientCase(
            name: "An app's own kind",
            delivery: event("own-1", .api, "invoice.paid", data: ["invoiceId": "inv-9", "amount": "12.50"], alert: .literal(title: "Paid", body: "Invoice 9 is paid")),
            variant: .full, event: .other(kind: "invoice.paid"), alert: HeraldAlert(title: "Paid", body: "Invoice 9 is paid")),
    ]

    /// 500 children whose keys alone are over any provider's limit.
    static let manyChildren = "{" + (0..<500).map { #""child-\#($0)":1"# }.joined(separator: ",") + "}"

    static func email(subject: String, from: String = "alice@example.com") -> @Sendable (DeviceTarget, HeraldModel.AddressKey?) -> Delivery {
        event("mail-1", .sudoEmail, "email.received",
              data: ["emailAddressId": "addr-1", "sudoId": "sudo-1", "owner": "owner-1", "messageId": "mail-1", "from": from,
                     "subject": subject, "receivedAt": "2026-11-21T10:00:00Z"],
              context: ["emailAddressId": "addr-1", "sudoId": "sudo-1", "owner": "owner-1"],
              options: DeliveryOptions(encryption: .required))
    }
}
