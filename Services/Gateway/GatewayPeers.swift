import Foundation
import HeraldDomain
import Logging
import Messaging
import Metrics
import ServiceKit
import ServiceLifecycle

/// How gateway replicas hold an app to one rate limit together: each announces itself on
/// `herald.control` every `interval` (routing key `gateway.alive`, its id), reads the others'
/// announcements from a queue of its own (exclusive, gone with the replica), and counts the
/// replicas heard within the last three intervals, itself included; its `RateLimiter` then
/// takes that share of every limit. A replica answers a newcomer's first announcement at
/// once and says goodbye when it stops, so a change is known within moments; one that dies
/// unannounced is forgotten after three intervals.
public struct GatewayPeers: Service {
    public static let routingKey = "gateway.alive"

    struct Announcement: Codable {
        var id: String
        var leaving: Bool
    }

    let id = UUID().uuidString.lowercased()
    let limiter: RateLimiter
    let runtime: ServiceRuntime
    let interval: Duration

    public init(limiter: RateLimiter, runtime: ServiceRuntime, interval: Duration = .seconds(1)) {
        self.limiter = limiter
        self.runtime = runtime
        self.interval = interval
    }

    /// Publishes this replica's announcement, gone after three intervals (best effort: a
    /// missed one is repeated next interval).
    func announce(leaving: Bool = false) async {
        if let error = await ControlNews.publish(
            Announcement(id: id, leaving: leaving), routingKey: Self.routingKey, type: "herald.gateway-alive.v1", expiration: interval * 3, runtime: runtime) {
            runtime.logger.debug("could not announce this gateway", metadata: ["error": "\(error)"])
        }
    }

    public func run() async throws {
        let consumer = ControlNews.consumer(prefix: "gateway.peers", routingKey: Self.routingKey, connection: "gateway-peers", runtime: runtime, prefetch: 64)
        let members = PeerTable(own: id, limiter: limiter, expiry: interval * 3)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        await announce()
                        await members.expire()
                        try? await Task.sleep(for: interval)
                    }
                }
                for await message in consumer {
                    if let announcement = try? JSONDecoder().decode(Announcement.self, from: message.body), announcement.id != id {
                        if announcement.leaving {
                            await members.remove(announcement.id)
                        } else if await members.heard(announcement.id) {
                            // A newcomer learns of this replica now, not an interval later.
                            await announce()
                        }
                    }
                    message.ack()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await announce(leaving: true)
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
    }
}

/// The other gateway replicas heard from, and when; every change sets the limiter's share.
actor PeerTable {
    let own: String
    let limiter: RateLimiter
    let expiry: Duration
    private var lastHeard: [String: ContinuousClock.Instant] = [:]
    private let replicas = Gauge(label: "herald_gateway_replicas")

    init(own: String, limiter: RateLimiter, expiry: Duration) {
        self.own = own
        self.limiter = limiter
        self.expiry = expiry
        replicas.record(1)
    }

    /// Notes an announcement; true when the replica was not known.
    func heard(_ id: String) -> Bool {
        let new = lastHeard.updateValue(.now, forKey: id) == nil
        if new { changed() }
        return new
    }

    func remove(_ id: String) {
        if lastHeard.removeValue(forKey: id) != nil { changed() }
    }

    func expire() {
        let before = lastHeard.count
        lastHeard = lastHeard.filter { ContinuousClock.now - $0.value < expiry }
        if lastHeard.count != before { changed() }
    }

    private func changed() {
        limiter.share(among: lastHeard.count + 1)
        replicas.record(lastHeard.count + 1)
    }
}
