import HeraldDomain
import HeraldModel
import HeraldProviders
import Messaging
import ServiceKit
import Testing

@Suite("Herald's AMQP topology")
struct TopologyTests {
    let topology = HeraldTopology.all(.herald)

    @Test("on a cluster, quorum queues and streams are kept on the configured number of nodes; classic queues are not replicated")
    func replicatedQueues() {
        let replicated = topology.replicated(3)
        for queue in replicated.queues {
            let arguments = Dictionary(uniqueKeysWithValues: queue.arguments.map { ($0.key, $0.value) })
            switch queue.kind {
            case .quorum: #expect(arguments["x-quorum-initial-group-size"] == .int(3), "\(queue.name)")
            case .stream: #expect(arguments["x-initial-cluster-size"] == .int(3), "\(queue.name)")
            case .classic: #expect(arguments["x-quorum-initial-group-size"] == nil && arguments["x-initial-cluster-size"] == nil, "\(queue.name)")
            }
        }
        #expect(replicated.queues.contains { $0.kind == .quorum })
        #expect(topology.replicated(nil) == topology)
        #expect(topology.queues.allSatisfy { $0.replicas == nil }, "the broker's default unless configured")
    }

    @Test("every binding joins a declared exchange to a declared queue")
    func bindingsAreClosed() {
        let exchanges = Set(topology.exchanges.map(\.name))
        let queues = Set(topology.queues.map(\.name))
        for binding in topology.bindings {
            #expect(exchanges.contains(binding.exchange), "\(binding.exchange) is not declared")
            #expect(queues.contains(binding.queue), "\(binding.queue) is not declared")
        }
        #expect(Set(topology.queues.map(\.name)).count == topology.queues.count, "a queue is declared twice")
    }

    @Test("work queues are durable quorum queues that dead-letter at least once to herald.dead")
    func workQueues() {
        // The stages' five, and a dispatch queue for each provider of the registry.
        let names = HeraldTopology.workQueues(ProviderRegistry.herald.platforms).map(\.name)
        let stages = ["registration.events", "preferences.resolved", "encryption.allowed", "registration.revocations", "registration.outcomes"]
        #expect(names.sorted() == (stages + ProviderRegistry.herald.platforms.map { "dispatch.\($0.rawValue)" }).sorted())
        for queue in HeraldTopology.workQueues(ProviderRegistry.herald.platforms) {
            #expect(queue.kind == .quorum && queue.durable)
            let args = Dictionary(uniqueKeysWithValues: queue.arguments.map { ($0.key, $0.value) })
            #expect(args["x-queue-type"] == .string("quorum"))
            #expect(args["x-dead-letter-exchange"] == .string("herald.dead"))
            #expect(args["x-dead-letter-strategy"] == .string("at-least-once"))
            #expect(args["x-overflow"] == .string("reject-publish"))
            #expect(args["x-delivery-limit"] == .int(HeraldTopology.workQueueDeliveryLimit))
        }
    }

    @Test("work queues are bounded: a length past which publishes are refused, and no message older than the longest delivery TTL")
    func workQueuesAreBounded() {
        for queue in HeraldTopology.workQueues(ProviderRegistry.herald.platforms) + [HeraldTopology.Queue.registrationDeadLetters] {
            let args = Dictionary(uniqueKeysWithValues: queue.arguments.map { ($0.key, $0.value) })
            #expect(args["x-max-length"] == .int(HeraldTopology.workQueueMaxLength), "\(queue.name)")
            #expect(args["x-overflow"] == .string("reject-publish"), "\(queue.name)")
            #expect(args["x-message-ttl"] == .int(Int64(DeliveryOptions.maximumTTL) * 1000), "\(queue.name)")
        }
        for platform in ProviderRegistry.herald.platforms {
            for tier in HeraldTopology.retryTiers {
                let args = Dictionary(uniqueKeysWithValues: HeraldTopology.retryQueue(platform, tier).arguments.map { ($0.key, $0.value) })
                #expect(args["x-max-length"] == .int(HeraldTopology.workQueueMaxLength))
                #expect(args["x-overflow"] == .string("reject-publish"))
            }
        }
    }

    @Test("everything dead-lettered also reaches Registration, whose queue dead-letters nowhere (no loop)")
    func deadLettersReachRegistration() {
        let queue = HeraldTopology.Queue.registrationDeadLetters
        #expect(topology.bindings.contains(BindingSpec(exchange: "herald.dead", queue: queue.name, routingKey: "")))
        #expect(queue.deadLetterExchange == nil && queue.kind == .quorum)
        #expect(topology.queue(named: queue.name) == queue)
    }

    @Test("the routes of the design exist")
    func routes() {
        func routed(_ exchange: String, _ key: String, to queue: String) -> Bool {
            topology.bindings.contains(BindingSpec(exchange: exchange, queue: queue, routingKey: key))
        }
        #expect(routed("herald.events", "#", to: "registration.events"))
        #expect(routed("herald.deliveries", "resolved", to: "preferences.resolved"))
        #expect(routed("herald.deliveries", "allowed", to: "encryption.allowed"))
        #expect(routed("herald.dispatch", "fcm", to: "dispatch.fcm"))
        #expect(routed("herald.dispatch", "hms", to: "dispatch.hms"))
        #expect(routed("herald.dispatch", "webhook", to: "dispatch.webhook"))
        #expect(routed("herald.control", "token.revoked", to: "registration.revocations"))
        #expect(routed("herald.outcomes", "#", to: "registration.outcomes"))
        #expect(routed("herald.dead", "", to: "dead-letters"))
        #expect(HeraldTopology.Exchange.outcomes.kind == .topic)
        #expect(HeraldTopology.Exchange.dead.kind == .fanout)
    }

    @Test("each retry tier of each platform is a delay queue that dead-letters back to its dispatch queue")
    func retryTiers() throws {
        #expect(HeraldTopology.retryTiers == HeraldTopology.retryTiers.sorted())
        #expect(HeraldTopology.retryTiers.first?.seconds == 1)
        for platform in ProviderRegistry.herald.platforms {
            for tier in HeraldTopology.retryTiers {
                let queue = try #require(topology.queue(named: "retry.\(platform.rawValue).\(tier.label)"))
                #expect(queue.messageTTLMilliseconds == Int64(tier.seconds) * 1000)
                #expect(queue.deadLetterExchange == "herald.dispatch")
                #expect(queue.deadLetterRoutingKey == platform.rawValue)
                #expect(topology.bindings.contains(BindingSpec(exchange: "herald.retry", queue: queue.name, routingKey: HeraldTopology.retryRoutingKey(platform, tier))))
            }
        }
    }

    @Test("a retry picks the smallest tier not shorter than the delay it needs")
    func tierChoice() {
        #expect(RetryTier.atLeast(seconds: 0.2).seconds == 1)
        #expect(RetryTier.atLeast(seconds: 1).seconds == 1)
        #expect(RetryTier.atLeast(seconds: 1.01).seconds == 2)
        #expect(RetryTier.atLeast(seconds: 45).seconds == 60)
        #expect(RetryTier.atLeast(seconds: 100_000).seconds == 1200)
        #expect(RetryTier(seconds: 120).label == "2m")
        #expect(RetryTier(seconds: 15).label == "15s")
    }

    @Test("merging topologies keeps each declaration once")
    func merging() {
        let merged = topology.merged(with: topology)
        #expect(merged == topology)
    }
}
