import Foundation
import HeraldModel

/// Turns an event's audience into the devices that should hear about it, with batched
/// queries: users → their devices (and Evernym sponsees' com methods); push ids → the
/// devices listing them; device ids; direct tokens; an email address → its owner's devices,
/// with the address's key attached.
public struct AudienceResolver: Sendable {
    let store: RegistrationStore

    public init(store: RegistrationStore) {
        self.store = store
    }

    public struct Recipient: Sendable, Hashable {
        public var device: DeviceTarget
        public var addressKey: AddressKey?
    }

    public func recipients(of event: NotificationEvent) async throws -> [Recipient] {
        let app = event.app
        var recipients: [Recipient]
        switch event.audience {
        case .users(let users):
            let devices = try await store.targets(app: app, users: users)
            let sponsees = try await store.sponsees(app: app, ids: users)
            recipients = devices.map { Recipient(device: $0) } + sponsees.compactMap(Self.target).map { Recipient(device: $0) }
        case .pushIds(let pushIds):
            recipients = try await store.targets(app: app, pushIds: pushIds).map { Recipient(device: $0) }
        case .devices(let ids):
            recipients = try await store.targets(app: app, ids: ids).map { Recipient(device: $0) }
        case .tokens(let tokens):
            recipients = tokens.map { Recipient(device: Self.direct($0)) }
        case .emailAddressId(let addressId):
            let registered = try await store.addressKey(app: app, emailAddressId: addressId)
            guard let owner = registered?.owner ?? event.context["owner"] else { return [] }
            recipients = try await store.targets(app: app, users: [owner]).map { Recipient(device: $0, addressKey: registered?.key) }
        }
        var seen = Set<String>()
        return recipients.filter { seen.insert($0.device.id).inserted }
    }

    /// A token addressed without a registered device; its id is derived from the token.
    static func direct(_ token: DirectToken) -> DeviceTarget {
        DeviceTarget(id: "token:\(token.platform.rawValue):\(Delivery.makeId(app: "", eventId: "", deviceId: token.token))",
                     platform: token.platform, token: token.token, os: .android)
    }

    /// A sponsee's com method as a target: type 4 pushes to its FCM token, type 3 goes to the
    /// sponsor's endpoint through the webhook dispatcher.
    static func target(_ sponsee: Sponsee) -> DeviceTarget? {
        switch sponsee.type {
        case 4 where sponsee.value.hasPrefix("FCM:"):
            return DeviceTarget(id: "sponsee:\(sponsee.sponseeId)", platform: .fcm, token: String(sponsee.value.dropFirst(4)), os: .android, userId: sponsee.sponseeId)
        case 3:
            return DeviceTarget(id: "sponsee:\(sponsee.sponseeId)", platform: .webhook, token: sponsee.value, os: .other, userId: sponsee.sponseeId)
        default:
            return nil
        }
    }
}
