import Foundation
import HeraldTestSupport
import Testing

/// Two replicas of Registration and of Preferences on one PostgreSQL database, behind two
/// gateways, as real processes: state written through one replica is used by the other, a
/// preference change reaches every replica within a second, and an event posted to both
/// gateways is delivered once.
extension ServiceProcesses {
    @Suite("Replicas on PostgreSQL", .needs(.database))
    struct ReplicaTests {
        @Test func twoReplicasOfEachStatefulServiceShareOneDatabase() async throws {
            let stack = try await HeraldStack.start(
                gateways: 2, databaseURL: try await TestDatabase.freshURLString(), registrations: 2, preferences: 2)
            var started: [ServiceProcess] = []
            do {
                try await Self.aRegistrationMadeThroughOneReplicaIsResolvedByTheOther(stack, started: &started)
                try await Self.aPreferenceChangeFiltersOnEveryReplicaWithinASecond(stack)
                try await Self.anEventPostedToBothGatewaysIsDeliveredOnce(stack)
                for process in started { try await process.terminate() }
                try await stack.stop()
            } catch {
                started.forEach { $0.discard() }
                await stack.discard()
                throw error
            }
        }

        /// Replica 1 stops; replica 0 takes the registration; a new replica starts and replica
        /// 0 stops: the event is resolved by a process that never saw the registration.
        static func aRegistrationMadeThroughOneReplicaIsResolvedByTheOther(_ stack: HeraldStack, started: inout [ServiceProcess]) async throws {
            try await stack.registrations[1].terminate()
            try await stack.expectOK("PUT", "/devices/replica-phone", ["platform": "fcm", "token": "replica-token", "os": "android", "userId": "replica-user"])
            let other = try ServiceProcess("herald-registration", environment: stack.environment)
            started.append(other)
            try await other.waitUntilReady()
            try await stack.registrations[0].terminate()
            // A second replica again, for the tests that follow.
            let another = try ServiceProcess("herald-registration", environment: stack.environment)
            started.append(another)
            let accepted = try await stack.expectOK("POST", "/events", [
                "id": "replica-1", "source": "api", "kind": "note", "audience": ["users": ["replica-user"]], "data": ["n": "1"],
            ])
            let eventId = try #require(accepted["eventId"] as? String)
            try await eventually(timeout: .seconds(30), "the push resolved by the other replica") { !stack.received("replica-token").isEmpty }
            try await eventually(timeout: .seconds(30), "the delivery recorded") {
                await stack.deliveries(of: eventId).first?["status"] as? String == "delivered"
            }
            try await another.waitUntilReady()
        }

        /// The channel is muted through one Preferences replica; a second later every event for
        /// it is filtered, by both replicas (each counts some).
        static func aPreferenceChangeFiltersOnEveryReplicaWithinASecond(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/pref-phone", ["platform": "fcm", "token": "pref-token", "os": "android", "userId": "pref-user"])
            try await stack.expectOK("PUT", "/users/pref-user/channels/muted/preferences", ["enabled": false])
            let changed = ContinuousClock.now
            try await Task.sleep(until: changed + .seconds(1))
            var eventIds: [String] = []
            for n in 0..<20 {
                let accepted = try await stack.expectOK("POST", "/events", [
                    "id": "muted-\(n)", "source": "api", "kind": "message.created", "audience": ["users": ["pref-user"]],
                    "context": ["channelId": "muted"], "data": ["n": "\(n)"],
                ], gateway: n % 2)
                eventIds.append(try #require(accepted["eventId"] as? String))
            }
            for eventId in eventIds {
                try await eventually(timeout: .seconds(30), "\(eventId) settled") { await !stack.deliveries(of: eventId).isEmpty }
                let deliveries = await stack.deliveries(of: eventId)
                #expect(deliveries.map { $0["reason"] as? String } == ["filtered by channel"], "\(eventId): \(deliveries)")
            }
            #expect(stack.received("pref-token").isEmpty)
            for replica in stack.preferences {
                let metrics = try await get(port: replica.healthPort, path: "/metrics").body
                let filtered = metrics.split(separator: "\n")
                    .filter { $0.hasPrefix("herald_preferences_decisions_total{") && $0.contains(#"result="filtered""#) && $0.contains(#"level="channel""#) }
                    .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
                #expect(filtered > 0, "replica \(replica.port) filtered some of the events")
            }
        }

        /// Fifty events, each posted to both gateways at once: two Registration replicas get
        /// the copies, and each event is pushed once.
        static func anEventPostedToBothGatewaysIsDeliveredOnce(_ stack: HeraldStack) async throws {
            try await stack.expectOK("PUT", "/devices/twice-phone", ["platform": "fcm", "token": "twice-token", "os": "android", "userId": "twice-user"])
            let events = 50
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<events {
                    for gateway in 0..<2 {
                        group.addTask {
                            let body: [String: Any] = ["id": "twice-\(n)", "source": "api", "kind": "note", "audience": ["users": ["twice-user"]], "data": ["n": "\(n)"]]
                            try await stack.expectOK("POST", "/events", body, gateway: gateway)
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await eventually(timeout: .seconds(60), "a push for every event") { Set(stack.received("twice-token").compactMap { ($0["data"] as? [String: String])?["event"] }).count == events }
            // Nothing left anywhere in the pipeline, so a late copy would have been seen.
            try await eventually(timeout: .seconds(60), "Herald's queues to drain") {
                let listing = try await TestBroker.rabbitmqctl("list_queues", "name", "messages")
                return HeraldStack.queues.allSatisfy { queue in
                    listing.split(separator: "\n").contains { $0.split(separator: "\t").first.map(String.init) == queue.name && $0.hasSuffix("\t0") }
                }
            }
            #expect(stack.received("twice-token").count == events, "one push per event")
            #expect(stack.sandbox.state.sendAttempts(provider: "fcm", token: "twice-token") == events)
        }
    }
}
