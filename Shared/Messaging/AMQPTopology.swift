/// A set of exchanges, queues and bindings, as data. Messaging declares it idempotently;
/// `HeraldTopology` holds Herald's own.
public struct AMQPTopology: Sendable, Hashable {
    public var exchanges: [ExchangeSpec]
    public var queues: [QueueSpec]
    public var bindings: [BindingSpec]

    public init(exchanges: [ExchangeSpec] = [], queues: [QueueSpec] = [], bindings: [BindingSpec] = []) {
        self.exchanges = exchanges
        self.queues = queues
        self.bindings = bindings
    }

    /// Both topologies together; a repeated declaration appears once.
    public func merged(with other: AMQPTopology) -> AMQPTopology {
        func union<T: Hashable>(_ a: [T], _ b: [T]) -> [T] {
            var seen = Set(a)
            return a + b.filter { seen.insert($0).inserted }
        }
        return AMQPTopology(
            exchanges: union(exchanges, other.exchanges),
            queues: union(queues, other.queues),
            bindings: union(bindings, other.bindings))
    }

    /// The same topology with its replicated queues (quorum queues and streams) kept on
    /// `replicas` nodes; unchanged for nil.
    public func replicated(_ replicas: Int?) -> AMQPTopology {
        guard let replicas else { return self }
        var copy = self
        copy.queues = queues.map { queue in
            var queue = queue
            if queue.kind != .classic { queue.replicas = replicas }
            return queue
        }
        return copy
    }

    public func queue(named name: String) -> QueueSpec? {
        queues.first { $0.name == name }
    }
}

public struct ExchangeSpec: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case direct, topic, fanout, headers
    }

    public var name: String
    public var kind: Kind
    public var durable: Bool

    public init(_ name: String, kind: Kind, durable: Bool = true) {
        self.name = name
        self.kind = kind
        self.durable = durable
    }
}

/// A queue and its arguments. Work queues are quorum queues that dead-letter at least once.
public struct QueueSpec: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// An append-only log consumers read from an offset of their choice (`x-stream-offset`).
        case quorum, classic, stream
    }

    public var name: String
    public var kind: Kind
    public var durable: Bool
    public var exclusive: Bool
    public var autoDelete: Bool
    public var deadLetterExchange: String?
    public var deadLetterRoutingKey: String?
    /// Messages older than this many milliseconds are dead-lettered (used by retry delay queues).
    public var messageTTLMilliseconds: Int64?
    /// Quorum queues dead-letter a message redelivered this many times.
    public var deliveryLimit: Int64?
    /// At most this many messages: past it the broker refuses publishes (`basic.nack`)
    /// instead of dropping anything.
    public var maxLength: Int64?
    /// For a stream: how long it keeps what was appended (`x-max-age`, e.g. `1h`).
    public var maxAge: String?
    /// For a stream: at most this many bytes; past it the oldest segments go, whatever
    /// their age (`x-max-length-bytes`).
    public var maxBytes: Int64?
    /// For a stream: the size of its segment files (`x-stream-max-segment-size-bytes`). A
    /// stream gives space back a whole segment at a time, so this is the grain of its limits
    /// (RabbitMQ's default is 500 MB).
    public var segmentBytes: Int64?
    /// Arguments added after an earlier release declared the queue: a broker that holds it
    /// without them, or with other values, is not asked to change it (it cannot); the queue
    /// is used as it is and the declaration says which argument it lacks (`DeclaredQueue`).
    public var addedArguments: Set<String> = []
    /// For a quorum queue or a stream on a cluster: on how many nodes it is kept
    /// (`x-quorum-initial-group-size`, `x-initial-cluster-size`); nil: the broker's default
    /// (every node, up to its limit).
    public var replicas: Int? = nil

    public init(
        _ name: String, kind: Kind = .quorum, durable: Bool = true, exclusive: Bool = false,
        autoDelete: Bool = false, deadLetterExchange: String? = nil,
        deadLetterRoutingKey: String? = nil, messageTTLMilliseconds: Int64? = nil,
        deliveryLimit: Int64? = nil, maxLength: Int64? = nil, maxAge: String? = nil,
        maxBytes: Int64? = nil, segmentBytes: Int64? = nil, addedArguments: Set<String> = []
    ) {
        self.name = name
        self.kind = kind
        self.durable = durable
        self.exclusive = exclusive
        self.autoDelete = autoDelete
        self.deadLetterExchange = deadLetterExchange
        self.deadLetterRoutingKey = deadLetterRoutingKey
        self.messageTTLMilliseconds = messageTTLMilliseconds
        self.deliveryLimit = deliveryLimit
        self.maxLength = maxLength
        self.maxAge = maxAge
        self.maxBytes = maxBytes
        self.segmentBytes = segmentBytes
        self.addedArguments = addedArguments
    }

    /// The `x-` arguments the broker receives, in a stable order.
    public var arguments: [(key: String, value: Argument)] {
        var args: [(String, Argument)] = []
        if kind != .classic { args.append(("x-queue-type", .string(kind.rawValue))) }
        if let maxAge { args.append(("x-max-age", .string(maxAge))) }
        if let maxBytes { args.append(("x-max-length-bytes", .int(maxBytes))) }
        if let segmentBytes { args.append(("x-stream-max-segment-size-bytes", .int(segmentBytes))) }
        let atLeastOnce = deadLetterExchange != nil && kind == .quorum
        if let dlx = deadLetterExchange {
            args.append(("x-dead-letter-exchange", .string(dlx)))
            // At-least-once dead-lettering: a message moves only once the target confirmed it.
            if atLeastOnce { args.append(("x-dead-letter-strategy", .string("at-least-once"))) }
        }
        // A full queue refuses what comes (the publisher hears `basic.nack`) rather than
        // dropping its oldest message; at-least-once dead-lettering requires it too.
        if atLeastOnce || maxLength != nil { args.append(("x-overflow", .string("reject-publish"))) }
        if let key = deadLetterRoutingKey { args.append(("x-dead-letter-routing-key", .string(key))) }
        if let ttl = messageTTLMilliseconds { args.append(("x-message-ttl", .int(ttl))) }
        if let limit = deliveryLimit { args.append(("x-delivery-limit", .int(limit))) }
        if let maxLength { args.append(("x-max-length", .int(maxLength))) }
        if let replicas, kind == .quorum { args.append(("x-quorum-initial-group-size", .int(Int64(replicas)))) }
        if let replicas, kind == .stream { args.append(("x-initial-cluster-size", .int(Int64(replicas)))) }
        return args.map { (key: $0.0, value: $0.1) }
    }

    public enum Argument: Sendable, Hashable {
        case string(String)
        case int(Int64)
    }
}

public struct BindingSpec: Sendable, Hashable {
    public var exchange: String
    public var queue: String
    public var routingKey: String

    public init(exchange: String, queue: String, routingKey: String) {
        self.exchange = exchange
        self.queue = queue
        self.routingKey = routingKey
    }
}
