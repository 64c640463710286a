import HeraldModel
import Messaging

/// Herald's AMQP topology: every exchange, queue, binding and retry tier, in one place.
/// Every service declares `HeraldTopology.all(providers)` at start; declaring is
/// idempotent. Each provider's queues follow from its platform name: `dispatch.<platform>`,
/// `dispatch.sent.<platform>` and the delay tiers `retry.<platform>.<tier>`.
public enum HeraldTopology {
    // MARK: Exchanges

    public enum Exchange {
        /// `herald.event.v1`, routing key `<source>.<kind>`.
        public static let events = ExchangeSpec("herald.events", kind: .topic)
        /// `herald.delivery.v1`, routing key `resolved` or `allowed`.
        public static let deliveries = ExchangeSpec("herald.deliveries", kind: .topic)
        /// `herald.dispatch.v1`, routing key = platform.
        public static let dispatch = ExchangeSpec("herald.dispatch", kind: .direct)
        /// Retry delay tiers, routing key `<platform>.<tier>`.
        public static let retry = ExchangeSpec("herald.retry", kind: .direct)
        /// Control messages such as `token.revoked`.
        public static let control = ExchangeSpec("herald.control", kind: .topic)
        /// `herald.outcome.v1`, routing key = status.
        public static let outcomes = ExchangeSpec("herald.outcomes", kind: .topic)
        /// Where work queues dead-letter, and where stages send what they cannot process.
        public static let dead = ExchangeSpec("herald.dead", kind: .fanout)
    }

    // MARK: Routing keys

    public enum RoutingKey {
        public static let resolved = "resolved"
        public static let allowed = "allowed"
        public static let tokenRevoked = "token.revoked"
        public static func dispatch(_ platform: Platform) -> String { platform.rawValue }
    }

    // MARK: Queues

    /// How many times a work queue redelivers a message before dead-lettering it: a backstop
    /// against poison messages; stages bound transient retries well below it.
    public static let workQueueDeliveryLimit: Int64 = 50

    /// The most messages (packs count as one) a work or delay queue holds. Past it the
    /// broker refuses publishes: the gateway answers 503 and stages retry, nothing is dropped.
    /// Operators can lower it with a `max-length` policy (the lower of the two applies).
    public static let workQueueMaxLength: Int64 = 1_000_000

    /// No message waits in a work queue longer than the longest delivery TTL (four weeks):
    /// past it the broker dead-letters it and Registration reports its deliveries `expired`.
    public static let workQueueMessageTTLMilliseconds = Int64(DeliveryOptions.maximumTTL) * 1000

    static func workQueue(_ name: String) -> QueueSpec {
        QueueSpec(
            name, deadLetterExchange: Exchange.dead.name, messageTTLMilliseconds: workQueueMessageTTLMilliseconds,
            deliveryLimit: workQueueDeliveryLimit, maxLength: workQueueMaxLength)
    }

    public enum Queue {
        public static let registrationEvents = workQueue("registration.events")
        public static let preferencesResolved = workQueue("preferences.resolved")
        public static let encryptionAllowed = workQueue("encryption.allowed")
        public static let registrationRevocations = workQueue("registration.revocations")
        /// Every outcome, for Registration's record of what became of each delivery.
        public static let registrationOutcomes = workQueue("registration.outcomes")
        /// Everything dead-lettered, for operators. Not a work queue: it dead-letters nowhere.
        public static let deadLetters = QueueSpec("dead-letters")
        /// Everything dead-lettered, again, for Registration to report each delivery in it
        /// (`DeadLetterReporter`). Bounded like a work queue, but it dead-letters nowhere:
        /// its own dead letters would come back to it.
        public static let registrationDeadLetters = QueueSpec(
            "registration.dead-letters", messageTTLMilliseconds: workQueueMessageTTLMilliseconds, maxLength: workQueueMaxLength)

        /// What a platform's dispatchers delivered lately (delivery ids), appended by each and
        /// read by all: the replica set's record against sending a push twice
        /// (`SentRecord`). A stream kept for an hour and at most `sentMaxBytes`, in 16 MB
        /// segments, so the broker's disk follows the hour instead of a 500 MB segment. A
        /// stream an earlier release declared without the size bound is used as it is.
        public static func sent(_ platform: Platform) -> QueueSpec {
            QueueSpec(
                "dispatch.sent.\(platform.rawValue)", kind: .stream, maxAge: "1h", maxBytes: sentMaxBytes, segmentBytes: 16 << 20,
                addedArguments: ["x-max-length-bytes", "x-stream-max-segment-size-bytes"])
        }

        /// The most a platform's sent record keeps: 512 MB, the ten minutes `SentRecord` reads
        /// at several thousand deliveries a second (some 120 bytes an id at 125 a second,
        /// fewer as packs grow).
        public static let sentMaxBytes: Int64 = 512 << 20

        /// The queue a platform's dispatchers consume.
        public static func dispatch(_ platform: Platform) -> QueueSpec {
            workQueue("dispatch.\(platform.rawValue)")
        }
    }

    /// The queues stages consume, each a quorum queue that dead-letters to `herald.dead`:
    /// the pipeline's and one per platform.
    public static func workQueues(_ platforms: [Platform]) -> [QueueSpec] {
        [Queue.registrationEvents, Queue.preferencesResolved, Queue.encryptionAllowed]
            + platforms.map(Queue.dispatch)
            + [Queue.registrationRevocations, Queue.registrationOutcomes]
    }

    /// The command queues the RPC servers consume (gateway → Registration / Preferences).
    public enum CommandQueue {
        public static let registration = QueueSpec("registration.commands", deliveryLimit: 5)
        public static let preferences = QueueSpec("preferences.commands", deliveryLimit: 5)
    }

    // MARK: Retry tiers

    /// The delays a retry can be scheduled with. A retry picks the smallest tier not shorter
    /// than the delay it needs; each tier is a quorum queue whose messages expire after the
    /// tier's delay and dead-letter back to `herald.dispatch` under the platform's key.
    public static let retryTiers: [RetryTier] = [1, 2, 4, 8, 15, 30, 60, 120, 300, 600, 1200]
        .map(RetryTier.init(seconds:))

    /// The delay queue of one platform and tier.
    public static func retryQueue(_ platform: Platform, _ tier: RetryTier) -> QueueSpec {
        QueueSpec(
            "retry.\(platform.rawValue).\(tier.label)",
            deadLetterExchange: Exchange.dispatch.name,
            deadLetterRoutingKey: RoutingKey.dispatch(platform),
            messageTTLMilliseconds: Int64(tier.seconds) * 1000, maxLength: workQueueMaxLength)
    }

    /// The routing key on `herald.retry` for one platform and tier.
    public static func retryRoutingKey(_ platform: Platform, _ tier: RetryTier) -> String {
        "\(platform.rawValue).\(tier.label)"
    }

    // MARK: The whole topology

    /// Every exchange, queue and binding of Herald with the providers of `registry`.
    public static func all(_ registry: ProviderRegistry) -> AMQPTopology {
        all(platforms: registry.platforms)
    }

    /// Every exchange, queue and binding of Herald with `platforms`.
    public static func all(platforms: [Platform]) -> AMQPTopology {
        let exchanges = [
            Exchange.events, Exchange.deliveries, Exchange.dispatch, Exchange.retry,
            Exchange.control, Exchange.outcomes, Exchange.dead,
        ]
        var queues = workQueues(platforms) + [Queue.deadLetters, Queue.registrationDeadLetters, CommandQueue.registration, CommandQueue.preferences]
        var bindings = [
            BindingSpec(exchange: Exchange.events.name, queue: Queue.registrationEvents.name, routingKey: "#"),
            BindingSpec(exchange: Exchange.deliveries.name, queue: Queue.preferencesResolved.name, routingKey: RoutingKey.resolved),
            BindingSpec(exchange: Exchange.deliveries.name, queue: Queue.encryptionAllowed.name, routingKey: RoutingKey.allowed),
            BindingSpec(exchange: Exchange.control.name, queue: Queue.registrationRevocations.name, routingKey: RoutingKey.tokenRevoked),
            BindingSpec(exchange: Exchange.outcomes.name, queue: Queue.registrationOutcomes.name, routingKey: "#"),
            BindingSpec(exchange: Exchange.dead.name, queue: Queue.deadLetters.name, routingKey: ""),
            BindingSpec(exchange: Exchange.dead.name, queue: Queue.registrationDeadLetters.name, routingKey: ""),
        ]
        for platform in platforms {
            queues.append(Queue.sent(platform))
            bindings.append(BindingSpec(
                exchange: Exchange.dispatch.name, queue: Queue.dispatch(platform).name,
                routingKey: RoutingKey.dispatch(platform)))
            for tier in retryTiers {
                let queue = retryQueue(platform, tier)
                queues.append(queue)
                bindings.append(BindingSpec(
                    exchange: Exchange.retry.name, queue: queue.name,
                    routingKey: retryRoutingKey(platform, tier)))
            }
        }
        return AMQPTopology(exchanges: exchanges, queues: queues, bindings: bindings)
    }
}

/// One retry delay.
public struct RetryTier: Sendable, Hashable, Comparable {
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// `1s`, `30s`, `2m`, `20m`.
    public var label: String {
        seconds >= 60 && seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s"
    }

    public static func < (a: RetryTier, b: RetryTier) -> Bool { a.seconds < b.seconds }

    /// The smallest tier not shorter than `seconds`; the longest tier when none is long enough.
    public static func atLeast(seconds: Double, in tiers: [RetryTier] = HeraldTopology.retryTiers) -> RetryTier {
        tiers.first { Double($0.seconds) >= seconds } ?? tiers.max()!
    }
}
