import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import StageTestSupport
import Preferences
import ServiceKit
import Testing

/// Every level and their combinations, decided by the real stage on the real broker, with
/// the store on a real SQLite file. Each row has its own app, so rows do not interfere.
@Suite("The preference filter, level by level", .needs(.broker))
struct FilterTableTests {
    typealias S = PreferenceSamples

    struct Row: Sendable {
        var name: String
        var setUp: @Sendable (PreferenceStore, String) async throws -> Void
        var delivery: @Sendable (String) -> Delivery
        var expected: FilterLevel?
    }

    static let rows: [Row] = [
        Row(name: "nothing set allows", setUp: { _, _ in }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "network off filters", setUp: { try await $0.setNetwork(app: $1, enabled: false) }, delivery: { S.delivery(app: $0) }, expected: .network),
        Row(name: "network off filters critical events too", setUp: { try await $0.setNetwork(app: $1, enabled: false) }, delivery: { S.delivery(app: $0, critical: true) }, expected: .network),
        Row(name: "network off then on allows", setUp: { try await $0.setNetwork(app: $1, enabled: false); try await $0.setNetwork(app: $1, enabled: true) }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "user off filters", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0) }, expected: .user),
        Row(name: "user off filters every device of the user", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0, deviceId: "d2") }, expected: .user),
        Row(name: "another user off allows", setUp: { try await $0.setUser(app: $1, userId: "u2", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "user off skipped by a critical event", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0, critical: true) }, expected: nil),
        Row(name: "user off skipped by an app-critical kind", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0, kind: "auth", source: .smartID) }, expected: nil),
        Row(name: "channel off filters", setUp: { try await $0.setChannel(app: $1, userId: "u1", channelId: "c1", enabled: false) }, delivery: { S.delivery(app: $0) }, expected: .channel),
        Row(name: "another channel off allows", setUp: { try await $0.setChannel(app: $1, userId: "u1", channelId: "c2", enabled: false) }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "channel off for another user allows", setUp: { try await $0.setChannel(app: $1, userId: "u2", channelId: "c1", enabled: false) }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "channel off skipped by a critical event", setUp: { try await $0.setChannel(app: $1, userId: "u1", channelId: "c1", enabled: false) }, delivery: { S.delivery(app: $0, critical: true) }, expected: nil),
        Row(name: "muted kind filters", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(mutedKinds: ["sign"])) }, delivery: { S.delivery(app: $0, kind: "sign", source: .smartID) }, expected: .kind),
        Row(name: "another muted kind allows", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(mutedKinds: ["member.joined"])) }, delivery: { S.delivery(app: $0) }, expected: nil),
        Row(name: "muted kind skipped by a critical event", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(mutedKinds: ["sign"])) }, delivery: { S.delivery(app: $0, kind: "sign", critical: true) }, expected: nil),
        Row(name: "user off and channel off: user is named", setUp: {
            try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)); try await $0.setChannel(app: $1, userId: "u1", channelId: "c1", enabled: false)
        }, delivery: { S.delivery(app: $0) }, expected: .user),
        Row(name: "network off and user off: network is named", setUp: {
            try await $0.setNetwork(app: $1, enabled: false); try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false))
        }, delivery: { S.delivery(app: $0) }, expected: .network),
        Row(name: "channel off and kind muted: channel is named", setUp: {
            try await $0.setChannel(app: $1, userId: "u1", channelId: "c1", enabled: false); try await $0.setUser(app: $1, userId: "u1", UserPreferences(mutedKinds: ["message.created"]))
        }, delivery: { S.delivery(app: $0) }, expected: .channel),
        Row(name: "a device without a user skips the user levels", setUp: { try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false)) }, delivery: { S.delivery(app: $0, userId: nil) }, expected: nil),
        Row(name: "device: service off filters", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: S.sudo, enabled: false)]))
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"]) }, expected: .device),
        Row(name: "device: another service off allows", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: "other", enabled: false)]))
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"]) }, expected: nil),
        Row(name: "device: the Sudo off filters", setUp: {
            _ = try await $0.updateConfiguration(app: $1, deviceId: "d1") { $0.initialize(service: S.sudo); $0.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false) }
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1", "emailAddressId": "a1"]) }, expected: .device),
        Row(name: "device: another Sudo off allows", setUp: {
            _ = try await $0.updateConfiguration(app: $1, deviceId: "d1") { $0.set(service: S.sudo, rule: S.rule(sudo: "s2"), enabled: false) }
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"]) }, expected: nil),
        Row(name: "device: the address off filters", setUp: {
            _ = try await $0.updateConfiguration(app: $1, deviceId: "d1") { $0.set(service: S.sudo, rule: S.rule(address: "a1"), enabled: false) }
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1", "emailAddressId": "a1"]) }, expected: .device),
        Row(name: "device: service off but this Sudo on (later wins) allows", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: S.sudo, enabled: false), .init(service: S.sudo, enabled: true, rule: S.rule(sudo: "s1"))]))
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"]) }, expected: nil),
        Row(name: "device: rules of another device allow", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d9", .init(entries: [.init(service: S.sudo, enabled: false)]))
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"]) }, expected: nil),
        Row(name: "device: a critical event is still filtered by the device", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: S.sudo, enabled: false)]))
        }, delivery: { S.delivery(app: $0, source: .sudoEmail, context: ["sudoId": "s1"], critical: true) }, expected: .device),
        Row(name: "device: context.service names the service", setUp: {
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: "calls", enabled: false)]))
        }, delivery: { S.delivery(app: $0, context: ["service": "calls"]) }, expected: .device),
        Row(name: "user off and device off: user is named", setUp: {
            try await $0.setUser(app: $1, userId: "u1", UserPreferences(enabled: false))
            try await $0.setConfiguration(app: $1, deviceId: "d1", .init(entries: [.init(service: "upstra", enabled: false)]))
        }, delivery: { S.delivery(app: $0) }, expected: .user),
    ]

    @Test func everyRowIsAllowedOrFilteredAtItsLevel() async throws {
        let directory = S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await PreferenceStore(directory: directory)
        // Every row's app treats `auth` as critical, as a Smart ID app would, and no service as
        // opt-in, so the rows show the configuration's own rules (email's opt-in default is
        // UpstreamRound4Tests').
        let config = directory.appendingPathComponent("herald.yaml")
        let apps = Self.rows.indices.map { "  row\($0):\n    criticalKinds: [auth]\n    optInServices: []\n" }.joined()
        try Data("apps:\n\(apps)".utf8).write(to: config)

        var deliveries: [(Row, Delivery)] = []
        for (index, row) in Self.rows.enumerated() {
            try await row.setUp(store, "row\(index)")
            deliveries.append((row, row.delivery("row\(index)")))
        }
        let decided = deliveries.count
        let harness = try StageHarness(
            "preferences", exchanges: ["deliveries": .topic, "outcomes": .topic],
            queues: ["allowed": ("deliveries", "allowed"), "outcomes": ("outcomes", "filtered")],
            environment: ["HERALD_CONFIG": config.path])
        let routes = StageRoutes(input: harness.work.queue, output: harness.exchanges["deliveries"]!, outcomes: harness.exchanges["outcomes"]!)
        try await harness.run([PreferencesStage.make(runtime: harness.runtime, apps: harness.herald.apps, store: store, routes: routes)], collecting: ["allowed", "outcomes"]) { collectors in
            for (_, delivery) in deliveries { try await harness.publish(delivery) }
            try await eventually("every delivery decided") {
                await collectors[0].inbox.count + collectors[1].inbox.count == decided
            }
            let allowed = Set(try await collectors[0].inbox.messages.map { try $0.decode(Delivery.self).deliveryId })
            let filtered = Dictionary(uniqueKeysWithValues: try await collectors[1].inbox.messages.map {
                let outcome = try $0.decode(Outcome.self)
                return (outcome.deliveryId, outcome)
            })
            for (row, delivery) in deliveries {
                if let level = row.expected {
                    let outcome = filtered[delivery.deliveryId]
                    #expect(outcome?.status == .filtered && outcome?.reason == "filtered by \(level.rawValue)", "\(row.name)")
                    #expect(!allowed.contains(delivery.deliveryId), "\(row.name)")
                } else {
                    #expect(allowed.contains(delivery.deliveryId), "\(row.name): \(filtered[delivery.deliveryId]?.reason ?? "not decided")")
                }
            }
        }
    }
}
