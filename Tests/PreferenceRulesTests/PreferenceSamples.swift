import Foundation
import HeraldModel
import PreferenceRules

enum PreferenceSamples {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-preferences-\(UUID().uuidString)")
    }

    static func delivery(
        app: String, userId: String? = "u1", deviceId: String = "d1", kind: String = "message.created",
        source: EventSource = .upstra, context: [String: String] = ["channelId": "c1"], critical: Bool = false
    ) -> Delivery {
        Delivery(
            eventId: "e-\(UUID().uuidString.prefix(8))", app: app, source: source, kind: kind, occurredAt: Date(),
            context: context, options: DeliveryOptions(critical: critical),
            device: DeviceTarget(id: deviceId, platform: .fcm, token: "t-\(deviceId)", os: .android, userId: userId))
    }

    static let sudo = "sudo-email"
    static func rule(sudo id: String) -> NotificationConfiguration.Rule { .init(field: .sudoId, value: id) }
    static func rule(address id: String) -> NotificationConfiguration.Rule { .init(field: .emailAddressId, value: id) }
}
