import CRabbitMQ
import DequeModule
import Foundation
import Logging
import Metrics
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a worker consumes, if anything.
struct ConsumeSpec: Sendable {
    var queue: String
    var prefetch: UInt16
    var noAck: Bool
    var exclusive: Bool
    /// `basic.consume` arguments, such as a stream's `x-stream-offset`.
    var arguments: [String: HeaderValue] = [:]
}

/// A publish waiting for its broker confirm.
struct PendingPublish: Sendable {
    var message: OutgoingMessage
    var completion: @Sendable (Result<Void, MessagingError>) -> Void
    /// Set when the broker returned the (mandatory) message as unroutable.
    var returned: String?
    var republished = false
}

/// One AMQP connection on its own thread. rabbitmq-c connections must never be touched by
/// two threads, so this thread does all the I/O: it connects (with backoff), declares the
/// topology, publishes what callers queued, reads confirms and deliveries, applies the
/// settlements callers queued, and reconnects after any failure. Callers talk to it through
/// a locked mailbox and an eventfd that wakes it from `poll`.
///
/// Publisher, Consumer and RPCClient are thin fronts over this one engine.
final class ChannelWorker: Sendable {
    struct Settlement: Sendable {
        var generation: UInt64
        var tag: UInt64
        var kind: SettlementKind
    }

    private struct Mailbox: Sendable {
        var outbox = Deque<PendingPublish>()
        var settlements: [Settlement] = []
        var stopRequested = false
        var stopDeadline: ContinuousClock.Instant?
        var stopConsumingRequested = false
        /// Why the channel should be replaced by a fresh one once its confirms are in, if it should.
        var renewal: String?
        var sleeping = false
        var connected = false
        /// Why the broker blocks this connection's publishes (a resource alarm), if it does.
        var blocked: String?
        var generation: UInt64 = 0
        var lastError: MessagingError?
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []

        /// Whether the worker sleeps in `poll` (and must be signalled); it is awake afterwards.
        mutating func takeSleeping() -> Bool {
            defer { sleeping = false }
            return sleeping
        }
    }

    let configuration: ConnectionConfiguration
    let confirms: Bool
    let consume: ConsumeSpec?
    /// How many publishes may await their confirm at once.
    let window: Int
    private let mailbox = Mutex(Mailbox())
    private let wakeup = Wakeup()
    private let sink: (any DeliverySink)?
    private let metrics: WorkerMetrics
    /// Messages published again after a reconnect because their confirm never came.
    let republishedCount = Atomic<Int>(0)
    /// Test seam: drop the connection right after the next publish, before its confirm is read.
    let dropAfterNextPublish = Atomic<Bool>(false)

    init(
        configuration: ConnectionConfiguration, confirms: Bool, consume: ConsumeSpec?,
        window: Int = 1000, sink: (any DeliverySink)? = nil
    ) {
        self.configuration = configuration
        self.confirms = confirms
        self.consume = consume
        self.window = max(1, window)
        self.sink = sink
        self.metrics = WorkerMetrics(connection: configuration.name)
    }

    /// Starts the worker thread.
    func start() {
        let thread = Thread { [self] in self.threadMain() }
        thread.name = "amqp:\(configuration.name)"
        thread.start()
    }

    // MARK: Caller side (any thread)

    var isConnected: Bool { mailbox.withLock { $0.connected } }
    /// Why the broker blocks publishing on this connection (`connection.blocked`), or nil.
    var blockedReason: String? { mailbox.withLock { $0.blocked } }
    var lastError: MessagingError? { mailbox.withLock { $0.lastError } }

    func enqueue(_ publishes: some Sequence<PendingPublish>) {
        let (rejected, signal): ([PendingPublish]?, Bool) = mailbox.withLock { box in
            if box.stopRequested || box.finished { return (Array(publishes), false) }
            box.outbox.append(contentsOf: publishes)
            return (nil, box.takeSleeping())
        }
        if let rejected {
            for publish in rejected {
                publish.completion(.failure(MessagingError(.shutdown, "the publisher \(configuration.name) is closed")))
            }
            return
        }
        if signal { wakeup.signal() }
    }

    func settle(generation: UInt64, tag: UInt64, kind: SettlementKind) {
        let signal = mailbox.withLock { box in
            box.settlements.append(Settlement(generation: generation, tag: tag, kind: kind))
            return box.takeSleeping()
        }
        if signal { wakeup.signal() }
    }

    /// Asks for a fresh channel: the worker stops publishing on this one, waits for its
    /// outstanding confirms (up to the confirm timeout), then reconnects. RabbitMQ 3.10 keeps
    /// refusing publishes on a channel a quorum queue once told it was full, even after the
    /// queue has room again; a new channel is not refused.
    func renewChannel(because reason: String) {
        let signal = mailbox.withLock { box in
            if box.renewal == nil { box.renewal = reason }
            return box.takeSleeping()
        }
        if signal { wakeup.signal() }
    }

    /// Cancels the consumer: deliveries stop and the delivery stream ends once the broker
    /// confirmed the cancel. In-flight deliveries can still be settled.
    func stopConsuming() {
        mailbox.withLock { $0.stopConsumingRequested = true }
        wakeup.signal()
    }

    /// Stops the worker: consuming ends, then it waits (up to `timeout`) until every queued
    /// publish is confirmed and every delivery handed out is settled, and closes.
    func stop(timeout: Duration) async {
        let alreadyFinished = mailbox.withLock { box -> Bool in
            if !box.stopRequested {
                box.stopRequested = true
                box.stopConsumingRequested = true
                box.stopDeadline = .now + timeout
            }
            return box.finished
        }
        wakeup.signal()
        if alreadyFinished { return }
        await withCheckedContinuation { continuation in
            let done = mailbox.withLock { box -> Bool in
                if box.finished { return true }
                box.finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Worker thread

    private var logger: Logger { configuration.logger }

    private func threadMain() {
        var attempt = 0
        var consumeEnded = false
        func endConsuming() {
            if !consumeEnded, consume != nil {
                consumeEnded = true
                sink?.finish()
            }
        }
        // Which of the configuration's addresses to try next; it moves on after a failure.
        let addresses = configuration.addresses
        var current = 0
        while !mailbox.withLock({ $0.stopRequested }) {
            let connection: RabbitConnection
            let generation: UInt64
            let url = addresses[current % addresses.count]
            do {
                connection = try RabbitConnection(
                    url: url, heartbeat: url.heartbeat ?? configuration.heartbeatSeconds,
                    name: configuration.name, connectTimeout: configuration.connectTimeout)
                do {
                    for note in try connection.declare(configuration.topology) {
                        logger.warning("queue declared by an earlier release", metadata: [
                            "connection": "\(configuration.name)", "note": "\(note)",
                            "see": "docs/operations.md, \"Queues an earlier release declared\"",
                        ])
                    }
                    if let consume {
                        // Direct reply-to needs its consumer in place before the first publish.
                        if !consume.noAck { try connection.qos(prefetch: consume.prefetch) }
                    }
                    if confirms { try connection.enableConfirms() }
                } catch {
                    connection.abandon()
                    throw error
                }
                generation = mailbox.withLock { box in
                    box.generation += 1
                    return box.generation
                }
            } catch {
                let error = error as? MessagingError ?? MessagingError(.connectionFailed, "\(error)")
                mailbox.withLock { $0.lastError = error }
                current += 1
                // A whole round of the cluster failed before the backoff grows.
                let delay = addresses.count > 1 && current % addresses.count != 0
                    ? .milliseconds(100) : configuration.reconnect.delay(attempt: attempt)
                logger.warning("broker connection failed; retrying", metadata: [
                    "connection": "\(configuration.name)", "url": "\(url)", "next": "\(addresses[current % addresses.count])",
                    "error": "\(error)", "retryInMs": "\(delay.milliseconds)",
                ])
                if addresses.count == 1 || current % addresses.count == 0 { attempt += 1 }
                wakeup.wait(timeout: delay)
                continue
            }

            let session = Session(worker: self, connection: connection, generation: generation)
            do {
                try session.setUpConsumer(alreadyEnded: consumeEnded)
                mailbox.withLock {
                    $0.connected = true
                    $0.blocked = nil
                    $0.lastError = nil
                    // A fresh connection is the fresh channel a renewal asked for.
                    $0.renewal = nil
                }
                metrics.connected.record(1)
                if attempt > 0 || generation > 1 {
                    logger.info("broker connection established", metadata: [
                        "connection": "\(configuration.name)", "generation": "\(generation)",
                    ])
                }
                attempt = 0
                try session.serve(endConsuming: endConsuming)
                connection.close()
                mailbox.withLock { $0.connected = false }
                break
            } catch {
                let error = error as? MessagingError ?? MessagingError(.connectionLost, "\(error)")
                sink?.flush()
                connection.abandon()
                metrics.connected.record(0)
                metrics.reconnects.increment()
                // Everything not confirmed goes out again on the next connection, in order.
                let unconfirmed = session.takeUnconfirmed()
                mailbox.withLock { box in
                    box.connected = false
                    box.lastError = error
                    box.settlements.removeAll()
                    for publish in unconfirmed.reversed() { box.outbox.prepend(publish) }
                }
                // The node may be gone: the next address first.
                current += 1
                logger.warning("broker connection lost; reconnecting", metadata: [
                    "connection": "\(configuration.name)", "error": "\(error)", "url": "\(url)",
                    "next": "\(addresses[current % addresses.count])", "unconfirmed": "\(unconfirmed.count)",
                ])
                wakeup.wait(timeout: configuration.reconnect.delay(attempt: 0))
            }
        }
        metrics.connected.record(0)
        endConsuming()
        let (leftovers, waiters) = mailbox.withLock { box in
            box.finished = true
            box.connected = false
            let leftovers = Array(box.outbox)
            box.outbox.removeAll()
            let waiters = box.finishWaiters
            box.finishWaiters.removeAll()
            return (leftovers, waiters)
        }
        for publish in leftovers {
            publish.completion(.failure(MessagingError(.shutdown, "\(configuration.name) stopped before this message was confirmed")))
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The state of one connection, confined to the worker thread.
    private final class Session {
        let worker: ChannelWorker
        let connection: RabbitConnection
        let generation: UInt64
        /// Taken from the mailbox and not yet written to the socket. A failure while writing
        /// leaves the rest here, and they go out again on the next connection.
        var toSend = Deque<PendingPublish>()
        var unconfirmed = Deque<(seq: UInt64, publish: PendingPublish, sent: ContinuousClock.Instant)>()
        /// Returns (`basic.return`) not yet matched to their publish: the broker confirms a
        /// returned message right after returning it, so the next confirm settles each.
        var returns = Deque<ReturnedMessage>()
        var nextSeq: UInt64 = 1
        var ledger = AckLedger()
        var unsettled: Int { ledger.outstanding }
        var consumerTag: String?
        var cancelSent = false
        var consumeEnded = false
        var lastInbound = ContinuousClock.now
        /// Whether the broker blocks publishing (`connection.blocked`), and since when it no
        /// longer does: time blocked does not count against a confirm's deadline.
        var publishingBlocked = false
        var unblockedAt = ContinuousClock.now

        init(worker: ChannelWorker, connection: RabbitConnection, generation: UInt64) {
            self.worker = worker
            self.connection = connection
            self.generation = generation
        }

        /// Every publish this connection took and did not complete, in order: those awaiting
        /// their confirm (published again on the next connection), then those never written.
        func takeUnconfirmed() -> [PendingPublish] {
            var publishes = unconfirmed.map { entry -> PendingPublish in
                var publish = entry.publish
                publish.republished = true
                publish.returned = nil
                return publish
            }
            publishes.append(contentsOf: toSend)
            unconfirmed.removeAll()
            toSend.removeAll()
            returns.removeAll()
            return publishes
        }

        func setUpConsumer(alreadyEnded: Bool) throws {
            consumeEnded = alreadyEnded
            guard let consume = worker.consume, !alreadyEnded else { return }
            let stopping = worker.mailbox.withLock { $0.stopConsumingRequested }
            guard !stopping else { return }
            consumerTag = try connection.consume(
                queue: consume.queue, noAck: consume.noAck, exclusive: consume.exclusive, arguments: consume.arguments)
        }

        /// Runs until the worker is asked to stop and has drained (returns), or the
        /// connection fails (throws).
        func serve(endConsuming: () -> Void) throws {
            let heartbeat = Double(connection.heartbeat)
            let tickMs: Int32 = heartbeat > 0 ? Int32(min(250, heartbeat * 250)) : 250
            while true {
                // 1. Take work from the mailbox.
                let room = worker.confirms ? max(0, worker.window - unconfirmed.count - toSend.count) : Int.max
                let (settlements, stopRequested, stopConsuming, deadline, renewal) = worker.mailbox.withLock { box in
                    let count = box.renewal == nil ? min(room, box.outbox.count) : 0
                    for _ in 0..<count { toSend.append(box.outbox.removeFirst()) }
                    let settlements = box.settlements
                    box.settlements.removeAll(keepingCapacity: true)
                    return (settlements, box.stopRequested, box.stopConsumingRequested, box.stopDeadline, box.renewal)
                }
                if let renewal, unconfirmed.isEmpty, toSend.isEmpty, !stopRequested {
                    worker.mailbox.withLock { $0.renewal = nil }
                    throw MessagingError(.connectionLost, "renewing the channel: \(renewal)")
                }

                let current = settlements.filter { $0.generation == generation }.map { (tag: $0.tag, kind: $0.kind) }
                if !current.isEmpty {
                    for frame in ledger.settle(current) {
                        switch frame {
                        case .ack(let tag, let multiple): try connection.ack(tag, multiple: multiple)
                        case .nack(let tag, let requeue): try connection.nack(tag, requeue: requeue)
                        }
                    }
                }
                // A publish leaves `toSend` only once it is written (or, with confirms, once it
                // awaits its confirm), so a write that throws loses none of the batch.
                func send() throws {
                    let now = ContinuousClock.now
                    while let publish = toSend.first {
                        if worker.confirms {
                            unconfirmed.append((nextSeq, publish, now))
                            nextSeq += 1
                            toSend.removeFirst()
                            try connection.publish(publish.message)
                        } else {
                            try connection.publish(publish.message)
                            toSend.removeFirst()
                            publish.completion(.success(()))
                        }
                        worker.metrics.published.increment()
                        if publish.republished {
                            worker.metrics.republished.increment()
                            worker.republishedCount.add(1, ordering: .relaxed)
                        }
                        if worker.dropAfterNextPublish.exchange(false, ordering: .relaxed) {
                            throw MessagingError(.connectionLost, "connection dropped on purpose after a publish")
                        }
                    }
                }
                if toSend.count > 1 { try connection.corked(send) } else if !toSend.isEmpty { try send() }

                // 2. Stop consuming when asked; end the stream when the broker confirmed it.
                if stopConsuming, !cancelSent {
                    cancelSent = true
                    if let tag = consumerTag {
                        try connection.cancel(consumerTag: tag)
                    } else if !consumeEnded {
                        consumeEnded = true
                        endConsuming()
                    }
                }

                // 3. Finished draining?
                if stopRequested {
                    let drained = unconfirmed.isEmpty && toSend.isEmpty && unsettled == 0 && (consumerTag == nil || consumeEnded)
                        && worker.mailbox.withLock { $0.outbox.isEmpty && $0.settlements.isEmpty }
                    if drained { return }
                    if let deadline, ContinuousClock.now >= deadline {
                        worker.logger.warning("shutdown deadline passed with work outstanding", metadata: [
                            "connection": "\(worker.configuration.name)",
                            "unconfirmed": "\(unconfirmed.count)", "unsettled": "\(unsettled)",
                        ])
                        for publish in unconfirmed.map(\.publish) + toSend {
                            publish.completion(.failure(MessagingError(.shutdown, "stopped before the broker confirmed this message")))
                        }
                        unconfirmed.removeAll()
                        toSend.removeAll()
                        return
                    }
                }

                // 4. Wait for input, unless some is already buffered or more work is queued.
                if !connection.hasBufferedInput {
                    let moreWork = worker.mailbox.withLock { box -> Bool in
                        let pending = (!box.outbox.isEmpty && box.renewal == nil && (!worker.confirms || unconfirmed.count + toSend.count < worker.window))
                            || !box.settlements.isEmpty
                            || (box.stopConsumingRequested && !cancelSent)
                        if !pending { box.sleeping = true }
                        return pending
                    }
                    if !moreWork {
                        var fds = [
                            pollfd(fd: connection.socketDescriptor, events: Int16(POLLIN), revents: 0),
                            pollfd(fd: worker.wakeup.descriptor, events: Int16(POLLIN), revents: 0),
                        ]
                        let timeout = stopRequested ? min(tickMs, 50) : tickMs
                        let ready = poll(&fds, 2, timeout)
                        worker.mailbox.withLock { $0.sleeping = false }
                        if ready > 0 {
                            if fds[1].revents != 0 { worker.wakeup.drain() }
                            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, fds[0].revents & Int16(POLLIN) == 0 {
                                throw MessagingError(.connectionLost, "socket closed")
                            }
                            if fds[0].revents != 0 { lastInbound = .now }
                        }
                    }
                } else {
                    lastInbound = .now
                }

                // 5. Read what arrived (this also sends heartbeats when they are due).
                var frames = 0
                while frames < 512, let frame = try connection.nextFrame() {
                    frames += 1
                    try handle(frame, endConsuming: endConsuming)
                }
                if frames > 0 {
                    lastInbound = .now
                    worker.sink?.flush()
                }
                connection.releaseBuffers()

                if heartbeat > 0, ContinuousClock.now - lastInbound > .seconds(heartbeat * 2 + 1) {
                    throw MessagingError(.connectionLost, "no heartbeat from the broker for \(Int(heartbeat * 2 + 1)) s")
                }
                try checkConfirmDeadline()
            }
        }

        /// Throws (so the worker reconnects and publishes every unconfirmed message again)
        /// when the oldest unconfirmed publish has waited longer than the confirm timeout,
        /// not counting time the broker blocked publishing.
        private func checkConfirmDeadline() throws {
            guard !publishingBlocked, let oldest = unconfirmed.first else { return }
            let timeout = worker.configuration.confirmTimeout
            if ContinuousClock.now - max(oldest.sent, unblockedAt) > timeout {
                throw MessagingError(.connectionLost, "no confirm from the broker within \(timeout) (\(unconfirmed.count) publishes unconfirmed)")
            }
        }

        private func handle(_ frame: amqp_frame_t, endConsuming: () -> Void) throws {
            guard frame.frame_type == UInt8(AMQP_FRAME_METHOD) else { return }
            let method = frame.payload.method
            switch method.id {
            case amqp_method_number_t(AMQP_BASIC_DELIVER_METHOD):
                let deliver = method.decoded!.assumingMemoryBound(to: amqp_basic_deliver_t.self).pointee
                let tag = deliver.delivery_tag
                let exchange = AMQPDecode.string(deliver.exchange)
                let routingKey = AMQPDecode.string(deliver.routing_key)
                let redelivered = deliver.redelivered != 0
                let content = try connection.readContent()
                guard let consume = worker.consume else { return }
                if consumeEnded {
                    // Arrived after the stream ended: give it back at once.
                    if !consume.noAck { try connection.nack(tag, requeue: true) }
                    return
                }
                let handle = consume.noAck ? nil : SettlementHandle(worker: worker, generation: generation, tag: tag)
                if !consume.noAck { ledger.delivered(tag) }
                worker.metrics.consumed.increment()
                worker.sink?.append(ReceivedMessage(
                    body: content.body, properties: content.properties, exchange: exchange,
                    routingKey: routingKey, redelivered: redelivered, deliveryTag: tag,
                    settlement: handle))

            case amqp_method_number_t(AMQP_BASIC_ACK_METHOD):
                let ack = method.decoded!.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee
                confirm(upTo: ack.delivery_tag, multiple: ack.multiple != 0, ok: true)

            case amqp_method_number_t(AMQP_BASIC_NACK_METHOD):
                let nack = method.decoded!.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
                confirm(upTo: nack.delivery_tag, multiple: nack.multiple != 0, ok: false)

            case amqp_method_number_t(AMQP_BASIC_RETURN_METHOD):
                let returned = method.decoded!.assumingMemoryBound(to: amqp_basic_return_t.self).pointee
                let why = "\(returned.reply_code) \(AMQPDecode.string(returned.reply_text)): exchange \"\(AMQPDecode.string(returned.exchange))\", routing key \"\(AMQPDecode.string(returned.routing_key))\""
                let content = try connection.readContent()
                if worker.confirms {
                    returns.append(ReturnedMessage(
                        exchange: AMQPDecode.string(returned.exchange), routingKey: AMQPDecode.string(returned.routing_key),
                        messageId: content.properties.messageId, body: content.body, reason: why))
                } else {
                    worker.logger.warning("message returned by the broker", metadata: ["reason": "\(why)"])
                }

            case amqp_method_number_t(AMQP_BASIC_CANCEL_OK_METHOD):
                consumerTag = nil
                if !consumeEnded {
                    consumeEnded = true
                    endConsuming()
                }

            case amqp_method_number_t(AMQP_BASIC_CANCEL_METHOD):
                // The broker cancelled us (queue deleted, node going down): consume again
                // on a fresh connection.
                throw MessagingError(.connectionLost, "the broker cancelled the consumer of \(worker.consume?.queue ?? "?")")

            case amqp_method_number_t(AMQP_CHANNEL_CLOSE_METHOD):
                let close = method.decoded!.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                connection.acknowledgeClose(onConnection: false)
                throw MessagingError(.channelError, "broker closed the channel: \(close.reply_code) \(AMQPDecode.string(close.reply_text))")

            case amqp_method_number_t(AMQP_CONNECTION_CLOSE_METHOD):
                let close = method.decoded!.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                connection.acknowledgeClose(onConnection: true)
                throw MessagingError(.connectionLost, "broker closed the connection: \(close.reply_code) \(AMQPDecode.string(close.reply_text))")

            case amqp_method_number_t(AMQP_CONNECTION_BLOCKED_METHOD):
                let blocked = method.decoded!.assumingMemoryBound(to: amqp_connection_blocked_t.self).pointee
                let reason = AMQPDecode.string(blocked.reason)
                publishingBlocked = true
                worker.mailbox.withLock { $0.blocked = reason.isEmpty ? "resource alarm" : reason }
                worker.logger.warning("broker blocked publishing", metadata: ["connection": "\(worker.configuration.name)", "reason": "\(reason)"])

            case amqp_method_number_t(AMQP_CONNECTION_UNBLOCKED_METHOD):
                publishingBlocked = false
                unblockedAt = .now
                worker.mailbox.withLock { $0.blocked = nil }
                worker.logger.info("broker unblocked publishing", metadata: ["connection": "\(worker.configuration.name)"])

            default:
                return
            }
        }

        /// Marks, for each pending return, the publish it belongs to: the first mandatory one
        /// with its exchange, routing key, message id and body among those this confirm covers.
        /// The broker confirms a returned message right after returning it, so it is there.
        private func matchReturns(upTo tag: UInt64, multiple: Bool) {
            var unmatched = Deque<ReturnedMessage>()
            while let returned = returns.popFirst() {
                let index = unconfirmed.firstIndex { entry in
                    (multiple ? entry.seq <= tag : entry.seq == tag) && entry.publish.returned == nil && returned.matches(entry.publish.message)
                }
                if let index { unconfirmed[index].publish.returned = returned.reason } else { unmatched.append(returned) }
            }
            if !unmatched.isEmpty, unconfirmed.allSatisfy({ $0.seq <= tag }) {
                // Nothing left that a later confirm could cover: the broker returned a message
                // this connection did not publish as mandatory.
                worker.logger.warning("message returned by the broker", metadata: ["reason": "\(unmatched.map(\.reason))"])
                unmatched.removeAll()
            }
            returns = unmatched
        }

        private func confirm(upTo tag: UInt64, multiple: Bool, ok: Bool) {
            if !returns.isEmpty { matchReturns(upTo: tag, multiple: multiple) }
            var done: [PendingPublish] = []
            if multiple {
                while let first = unconfirmed.first, first.seq <= tag {
                    done.append(unconfirmed.removeFirst().publish)
                }
            } else if let index = unconfirmed.firstIndex(where: { $0.seq == tag }) {
                done.append(unconfirmed.remove(at: index).publish)
            }
            for publish in done {
                if !ok {
                    worker.metrics.nacked.increment()
                    publish.completion(.failure(MessagingError(.publishRejected, "the broker refused the message (basic.nack)")))
                } else if let returned = publish.returned {
                    publish.completion(.failure(MessagingError(.unroutable, "no queue took the message: \(returned)")))
                } else {
                    publish.completion(.success(()))
                }
            }
        }
    }
}

/// A message the broker returned (`basic.return`) as unroutable, until it is matched to
/// its publish.
struct ReturnedMessage {
    var exchange: String
    var routingKey: String
    var messageId: String?
    var body: Data
    var reason: String

    func matches(_ message: OutgoingMessage) -> Bool {
        message.mandatory && message.exchange == exchange && message.routingKey == routingKey
            && message.properties.messageId == messageId && message.body == body
    }
}

/// Per-connection counters.
struct WorkerMetrics: Sendable {
    let published: Counter
    let republished: Counter
    let nacked: Counter
    let consumed: Counter
    let reconnects: Counter
    let connected: Gauge

    init(connection: String) {
        let dimensions = [("connection", connection)]
        published = Counter(label: "herald_amqp_published_total", dimensions: dimensions)
        republished = Counter(label: "herald_amqp_republished_total", dimensions: dimensions)
        nacked = Counter(label: "herald_amqp_publish_rejected_total", dimensions: dimensions)
        consumed = Counter(label: "herald_amqp_consumed_total", dimensions: dimensions)
        reconnects = Counter(label: "herald_amqp_reconnects_total", dimensions: dimensions)
        connected = Gauge(label: "herald_amqp_connected", dimensions: dimensions)
    }
}
