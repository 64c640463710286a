import Foundation
import HeraldDomain
import HeraldModel
import ServiceKit

/// Turns an event's audience into the devices that should hear about it, with batched
/// queries: users → their devices (and Evernym sponsees' com methods); push ids → the
/// devices listing them; device ids; direct tokens; an email address → its owner's devices,
/// with the address's key attached. The deliveries of an app in webhook mode (one per user,
/// see `forwards`) are routed to the webhook dispatcher.
public struct AudienceResolver: Sendable {
    let store: any AudienceStore
    /// Apps whose every delivery is forwarded to their webhook.
    let webhookApps: Set<String>

    public init(store: any AudienceStore, apps: AppsConfiguration = AppsConfiguration()) {
        self.store = store
        webhookApps = Set(apps.apps.filter { $0.value.delivery.mode == .webhook }.keys)
    }

    /// A device an event reaches, with the key of the address it was reached through (an
    /// email address's audience) when there is one.
    public struct ResolvedDevice: Sendable, Hashable {
        public var device: DeviceTarget
        public var addressKey: AddressKey?
    }

    /// The devices one event reaches.
    public func devices(of event: NotificationEvent) async throws -> [ResolvedDevice] {
        try await devices(of: [event])[0]
    }

    /// The devices each of `events` reaches, from one lookup of the store for the whole batch.
    public func devices(of events: [NotificationEvent]) async throws -> [[ResolvedDevice]] {
        var lookup = AudienceLookup()
        for event in events { Self.add(event, to: &lookup) }
        let directory = lookup.isEmpty ? AudienceDirectory() : try await store.lookUp(lookup)
        return events.map { devices(of: $0, directory) }
    }

    /// What `event`'s audience needs looked up.
    static func add(_ event: NotificationEvent, to lookup: inout AudienceLookup) {
        let app = event.app
        switch event.audience {
        case .users(let users): lookup.users[app, default: []].formUnion(users)
        case .pushIds(let pushIds): lookup.pushIds[app, default: []].formUnion(pushIds)
        case .devices(let ids): lookup.deviceIds[app, default: []].formUnion(ids)
        case .tokens: break
        case .emailAddressId(let addressId):
            lookup.addresses[app, default: []].insert(addressId)
            // The owner named by the event, for an address without a registered key.
            if let owner = event.context["owner"] { lookup.users[app, default: []].insert(owner) }
        }
    }

    private func devices(of event: NotificationEvent, _ directory: AudienceDirectory) -> [ResolvedDevice] {
        let app = event.app
        var recipients: [ResolvedDevice]
        switch event.audience {
        case .users(let users):
            let devices = users.flatMap { directory.devices(app: app, user: $0) }
            let sponsees = users.compactMap { directory.sponsee(app: app, id: $0) }
            let forwardsAll = webhookApps.contains(app)
            recipients = devices.map { ResolvedDevice(device: $0) } + sponsees.compactMap { Self.target($0, forwardsAll: forwardsAll) }.map { ResolvedDevice(device: $0) }
        case .pushIds(let pushIds):
            recipients = pushIds.flatMap { directory.devices(app: app, pushId: $0) }.map { ResolvedDevice(device: $0) }
        case .devices(let ids):
            recipients = ids.compactMap { directory.device(app: app, id: $0) }.map { ResolvedDevice(device: $0) }
        case .tokens(let tokens):
            recipients = tokens.map { ResolvedDevice(device: Self.direct($0)) }
        case .emailAddressId(let addressId):
            let registered = directory.addressKey(app: app, emailAddressId: addressId)
            guard let owner = registered?.owner ?? event.context["owner"] else { return [] }
            recipients = directory.devices(app: app, user: owner).map { ResolvedDevice(device: $0, addressKey: registered?.key(forDevice: $0.id)) }
        }
        var seen = Set<String>()
        recipients = recipients.filter { seen.insert($0.device.id).inserted }
        if webhookApps.contains(app) {
            // The tenant's server is the recipient: no address key to encrypt to.
            return Self.forwards(recipients.map(\.device), named: Self.namedUsers(of: event, directory)).map { ResolvedDevice(device: $0) }
        }
        return recipients
    }

    /// The users an event names itself, who are forwarded to in webhook mode with or without
    /// a device: `users` (but sponsees, forwarded as such), an address's owner.
    static func namedUsers(of event: NotificationEvent, _ directory: AudienceDirectory) -> [String] {
        switch event.audience {
        case .users(let users): users.filter { directory.sponsee(app: event.app, id: $0) == nil }
        case .emailAddressId(let addressId): (directory.addressKey(app: event.app, emailAddressId: addressId)?.owner ?? event.context["owner"]).map { [$0] } ?? []
        case .pushIds, .devices, .tokens: []
        }
    }

    /// The forwards of an app in webhook mode: one per user (each user the event names, and
    /// each user owning a resolved device), listing the user's devices; a device without a
    /// user, a direct token and a sponsee each have their own.
    static func forwards(_ targets: [DeviceTarget], named users: [String]) -> [DeviceTarget] {
        var order: [String] = []
        var devices: [String: [DeviceTarget]] = [:]
        var alone: [DeviceTarget] = []
        for target in targets {
            guard let user = target.userId, !target.id.hasPrefix(sponseePrefix), !target.id.hasPrefix("token:") else {
                alone.append(forwarded(target))
                continue
            }
            if devices[user] == nil { order.append(user) }
            devices[user, default: []].append(target)
        }
        for user in users where devices[user] == nil {
            devices[user] = []
            order.append(user)
        }
        return order.map { userForward($0, devices: devices[$0] ?? []) } + alone
    }

    /// A user's forward: its id (`user:<userId>`, so the delivery id is the same for every
    /// copy of the event), the user's devices in `recipient`, and the first device's locale
    /// for the alert.
    static func userForward(_ user: String, devices: [DeviceTarget]) -> DeviceTarget {
        let recipient = WebhookRecipient(userId: user, devices: devices.map { .init(deviceId: $0.id, platform: $0.platform, token: $0.token) })
        return DeviceTarget(
            id: userPrefix + user, platform: .webhook, token: "", os: devices.first?.os ?? .other, userId: user,
            locale: devices.lazy.compactMap(\.locale).first, recipient: recipient)
    }

    static let userPrefix = "user:"

    /// A target of an app in webhook mode: the same device (same id, so the same delivery
    /// id), routed to the webhook dispatcher, telling the tenant which device and user it is
    /// for and the device's own provider and token.
    static func forwarded(_ target: DeviceTarget) -> DeviceTarget {
        guard target.platform != .webhook else { return target }
        let sponseeId = target.id.hasPrefix(sponseePrefix) ? String(target.id.dropFirst(sponseePrefix.count)) : nil
        let recipient = WebhookRecipient(
            userId: sponseeId == nil ? target.userId : nil, deviceId: sponseeId == nil ? target.id : nil,
            platform: target.platform, token: target.token, sponseeId: sponseeId)
        return DeviceTarget(id: target.id, platform: .webhook, token: "", os: target.os, userId: target.userId, locale: target.locale, recipient: recipient)
    }

    static let sponseePrefix = "sponsee:"

    /// A token addressed without a registered device; its id is derived from the token. Its
    /// system is unknown (`other`): an Evernym `FCM:` com method may be an Android phone or
    /// an iPhone on Firebase, and the push is made for both.
    static func direct(_ token: DirectToken) -> DeviceTarget {
        DeviceTarget(id: "token:\(token.platform.rawValue):\(Delivery.makeId(app: "", eventId: "", deviceId: token.token))",
                     platform: token.platform, token: token.token, os: .other)
    }

    /// A sponsee's com method as a target. Types 3 ("Forward Push": Verity forwards, Herald
    /// pushes) and 4 ("Sponsor Push": Verity pushes itself with the sponsor's key, and a
    /// forward that reaches Herald anyway is pushed too) both push to the token the value
    /// names (`FCM:<token>`), its system unknown. A value that names none is for the
    /// sponsor's own server: forwarded, opaque to Herald, as `sponseeDetails` when the app
    /// forwards everything (webhook mode); else nobody is reached.
    static func target(_ sponsee: Sponsee, forwardsAll: Bool) -> DeviceTarget? {
        let id = sponseePrefix + sponsee.sponseeId
        guard sponsee.type == 3 || sponsee.type == 4 else { return nil }
        if let token = DirectToken(comMethod: sponsee.value) {
            return DeviceTarget(id: id, platform: token.platform, token: token.token, os: .other, userId: sponsee.sponseeId)
        }
        guard forwardsAll else { return nil }
        return DeviceTarget(
            id: id, platform: .webhook, token: "", os: .other, userId: sponsee.sponseeId,
            recipient: WebhookRecipient(sponseeId: sponsee.sponseeId, sponseeDetails: sponsee.value))
    }
}
