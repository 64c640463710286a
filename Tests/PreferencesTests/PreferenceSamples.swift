import Foundation
import HeraldModel
import HeraldStorage
import HeraldTestSupport
import Logging
import Preferences

/// Where a test keeps preferences: a new directory (SQLite) or a new database (PostgreSQL),
/// and stores opened on it, again and again, as replicas or after a restart.
struct PreferenceSite: Sendable {
    let backend: StoreBackend
    let directory: URL
    let url: PostgresURL?

    func open(announce: (@Sendable (PreferenceEntry.Key) async -> Void)? = nil) async throws -> PreferenceStore {
        switch backend {
        case .sqlite:
            return try await PreferenceStore(storage: SQLitePreferenceStorage(directory: directory), announce: announce)
        case .postgres:
            let pool = try await PostgresPool.open(url!, logger: Logger(label: "test"), maximumConnections: 4)
            return try await PreferenceStore(storage: PostgresPreferenceStorage(database: pool), announce: announce)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

enum PreferenceSamples {
    static func site(_ backend: StoreBackend) async throws -> PreferenceSite {
        PreferenceSite(backend: backend, directory: temporaryDirectory(), url: backend == .postgres ? try await TestDatabase.freshURL() : nil)
    }

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
