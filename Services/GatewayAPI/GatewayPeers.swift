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
    let queue: QueueSpec

    public init(limiter: RateLimiter, runtime: ServiceRuntime, interval: Duration = .seconds(1)) {
        self.limiter = limiter
        self.runtime = runtime
        self.interval = interval
        queue = QueueSpec("gateway.peers.\(id)", kind: .classic, durable: false, exclusive: true, autoDelete: true)
    }

    /// Publishes this replica's announcement (best effort: a missed one is repeated next interval).
    func announce(leaving: Bool = false) async {
        guard let publisher = runtime.publisher, let body = try? JSONEncoder().encode(Announcement(id: id, leaving: leaving)) else { return }
        let milliseconds = interval.components.seconds * 3000 + interval.components.attoseconds / 333_333_333_333_333
        let message = OutgoingMessage(
            exchange: HeraldTopology.Exchange.control.name, routingKey: Self.routingKey, body: body,
            properties: MessageProperties(
                contentType: "application/json", type: "herald.gateway-alive.v1", expiration: String(max(1, milliseconds)), persistent: false))
        do {
            try await publisher.publish(message)
        } catch {
            runtime.logger.debug("could not announce this gateway", metadata: ["error": "\(error)"])
        }
    }

    public func run() async throws {
        var configuration = runtime.connection("gateway-peers")
        configuration.topology = configuration.topology.merged(with: AMQPTopology(
            queues: [queue], bindings: [BindingSpec(exchange: HeraldTopology.Exchange.control.name, queue: queue.name, routingKey: Self.routingKey)]))
        let consumer = Consumer(configuration: configuration, queue: queue.name, prefetch: 64, exclusive: true)
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
