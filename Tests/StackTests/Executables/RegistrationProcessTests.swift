import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import Messaging
import Registration
import ServiceKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ServiceProcesses {
    @Suite("herald-registration processes")
    struct RegistrationProcessTests {
        /// A `kill -9` in the middle of a 20,000-delivery fan-out: after a restart on the same
        /// data, every delivery exists, and the repeated ones carry the same ids.
        @Test func aFanOutInterruptedByKillMinus9IsCompleteAfterARestartWithTheSameIds() async throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-registration-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let app = "fanout-\(UUID().uuidString.prefix(6))"
            do {
                let store = try SQLiteRegistrationStore(directory: data)
                for n in 0..<10_000 {
                    for suffix in ["a", "b"] {
                        try await store.register(app: app, DeviceRegistration(deviceId: "d\(n)-\(suffix)", platform: .fcm, token: "t\(n)-\(suffix)", os: .android, userId: "u\(n)"))
                    }
                }
            }
            let resolved = HeraldTopology.Queue.preferencesResolved.name
            try await TestBroker.admin.purge(resolved)
            try await TestBroker.admin.purge(HeraldTopology.Queue.registrationEvents.name)
            let collector = Collector(TestBroker.configuration("fanout-collector"), queue: resolved, prefetch: 1000)
            let event = NotificationEvent(id: "big-\(app)", app: app, source: .api, kind: "test", occurredAt: Date(), audience: .users((0..<10_000).map { "u\($0)" }))

            let first = try ServiceProcess("herald-registration", environment: ["HERALD_DATA_DIR": data.path, "HERALD_LOG_LEVEL": "warning"])
            defer { first.discard() }
            try await first.waitUntilReady()
            let publisher = Publisher(configuration: TestBroker.configuration("fanout-publisher", topology: HeraldTopology.all(.herald)))
            try await publisher.publish(OutgoingMessage(contract: event, exchange: HeraldTopology.Exchange.events.name, routingKey: event.routingKey, mandatory: true))
            await publisher.close()
            // Killed at the first delivery seen: the collector lags behind the broker, and on a
            // loaded machine it had the whole fan-out by the time it had seen 2,000.
            try await collector.inbox.waitUntil(timeout: .seconds(60), "the fan-out to start") { $0.count >= 1 }
            first.killHard()
            let beforeKill = await collector.inbox.count

            let second = try ServiceProcess("herald-registration", environment: ["HERALD_DATA_DIR": data.path, "HERALD_LOG_LEVEL": "warning"])
            defer { second.discard() }
            try await second.waitUntilReady()
            let expected = Set((0..<10_000).flatMap { n in ["a", "b"].map { Delivery.makeId(app: app, eventId: event.id, deviceId: "d\(n)-\($0)") } })
            try await eventually(timeout: .seconds(90), "every delivery") {
                Set(await collector.inbox.messages.compactMap(\.properties.messageId)).isSuperset(of: expected)
            }
            let ids = await collector.inbox.messages.compactMap(\.properties.messageId)
            print("herald-registration kill -9 test: \(beforeKill) deliveries before the kill, \(ids.count) in all, \(Set(ids).count) distinct")
            #expect(Set(ids) == expected, "nothing but the expected ids: repeats carry the same ones")
            #expect(beforeKill < 20_000, "the kill came mid-fan-out")
            try await second.terminate()
            await collector.stop()
            try await TestBroker.admin.purge(resolved)
        }
    }
}
