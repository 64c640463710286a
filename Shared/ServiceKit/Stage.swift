import Foundation
import HeraldTracing
import Logging
import Messaging
import Metrics
import ServiceLifecycle
import Synchronization

/// The pipeline stage every middle service is: consume one queue, decode `Input`,
/// call the handler, publish its emissions with confirms, and only then acknowledge the
/// input. So a crash at any point loses nothing: an input is either acknowledged after its
/// outputs are safely in the broker, or redelivered.
///
/// - An input that cannot be decoded, or that the handler rejects (`StageError.rejected`),
///   is published to the queue's dead-letter exchange (the runtime's when the queue has
///   none) with an `x-herald-reason` header, and then acknowledged.
/// - Any other failure is retried: the input goes back to the queue after a short backoff,
///   up to `maxAttempts` deliveries; then it is dead-lettered with the last error.
/// - A failure saying the service itself cannot work now (`StageError.unavailable`, or a
///   `ResourceFailure` such as a full disk or a database that does not answer) is no fault
///   of the input: it goes back to the queue without counting an attempt, after a backoff
///   that grows to 5 s while the failures last, so an outage of the store is waited out
///   instead of dead-lettering everything that arrived during it.
/// - On graceful shutdown the stage stops consuming, finishes what it holds, and returns.
///
/// A stage runs in one of two modes. Per message (`handler:`): every input is handled on
/// its own task, up to `prefetch` at once. In batches (`batchSize:`): the inputs that have
/// already arrived (up to `batchSize`) are handled together, so the handler can check and
/// record a whole window in one database transaction, and their emissions are published
/// with one confirm wait. At most `batchesInFlight` batches run at once, and the next is
/// taken when one ends: an idle stage handles an input at once, a busy one gathers what
/// arrives while its batches are in flight (group commit, with no timer to wait for).
public struct Stage<Input: StageInput>: Service {
    public typealias Handler = @Sendable (Input) async throws -> [Emission]
    /// Runs once an input's emissions are confirmed, before its ack: for state that may only
    /// change when the outputs are safe (e.g. marking an event processed). A failure here
    /// is tried again in place, never by redelivering the input, which would publish its
    /// outputs again; if it keeps failing the input is acknowledged without it.
    public typealias Committed = @Sendable (Input) async throws -> Void
    /// A batch's handler: the emissions of each input, in the inputs' order, or nil for an
    /// input it skips (a repeat, or a copy another batch is handling): a skipped input is
    /// acknowledged with the batch but is not the batch's to commit or release. Throwing
    /// fails the whole batch (`StageError.rejected` dead-letters it, anything else retries
    /// it); the handler then undoes what it claimed itself.
    public typealias BatchHandler = @Sendable ([Input]) async throws -> [[Emission]?]
    /// `Committed` for a batch: runs once every emission of the batch is confirmed, with the
    /// inputs the handler did not skip.
    public typealias BatchCommitted = @Sendable ([Input]) async throws -> Void
    /// Runs when a batch fails after its handler returned (publishing failed), before its
    /// inputs go back to the queue, or when its commit failed for good (the inputs are then
    /// acknowledged without it), with the inputs the handler did not skip: to undo what it
    /// claimed.
    public typealias Released = @Sendable ([Input]) async -> Void

    /// How the inputs are handled.
    enum Work: Sendable {
        case single(Handler, committed: Committed?)
        case batch(size: Int, inFlight: Int, BatchHandler, committed: BatchCommitted?, released: Released?)
    }

    /// Test seams: run between publishing the outputs and acknowledging the input. Not part
    /// of the public API: tests reach them through HeraldTestSupport (`Stage.withHooks`).
    @_spi(Testing) public struct Hooks: Sendable {
        public var afterPublish: (@Sendable (ReceivedMessage) async -> Void)?
        public init(afterPublish: (@Sendable (ReceivedMessage) async -> Void)? = nil) {
            self.afterPublish = afterPublish
        }
    }

    public let name: String
    public let queue: QueueSpec
    public let prefetch: UInt16
    /// Deliveries of one input (first included) before a transient failure is final.
    public let maxAttempts: Int
    private let runtime: ServiceRuntime
    private let work: Work
    private let hooks: Hooks
    private let probe = ReadinessProbe()

    public init(
        _ name: String? = nil, consuming queue: QueueSpec, prefetch: UInt16 = 64, maxAttempts: Int = 5,
        runtime: ServiceRuntime, committed: Committed? = nil, handler: @escaping Handler
    ) {
        self.init(name, queue: queue, prefetch: prefetch, maxAttempts: maxAttempts, runtime: runtime, hooks: Hooks(),
                  work: .single(handler, committed: committed))
    }

    /// A per-message stage with test seams.
    @_spi(Testing) public init(
        _ name: String? = nil, consuming queue: QueueSpec, prefetch: UInt16 = 64, maxAttempts: Int = 5,
        runtime: ServiceRuntime, hooks: Hooks, committed: Committed? = nil, handler: @escaping Handler
    ) {
        self.init(name, queue: queue, prefetch: prefetch, maxAttempts: maxAttempts, runtime: runtime, hooks: hooks,
                  work: .single(handler, committed: committed))
    }

    /// A stage that handles its inputs in batches of up to `batchSize` messages, at most
    /// `batchesInFlight` at once (see the type's notes).
    public init(
        _ name: String? = nil, consuming queue: QueueSpec, prefetch: UInt16 = 64, batchSize: Int, batchesInFlight: Int = 1, maxAttempts: Int = 5,
        runtime: ServiceRuntime, committed: BatchCommitted? = nil, released: Released? = nil,
        batchHandler: @escaping BatchHandler
    ) {
        self.init(name, queue: queue, prefetch: prefetch, maxAttempts: maxAttempts, runtime: runtime, hooks: Hooks(),
                  work: .batch(size: max(1, batchSize), inFlight: max(1, batchesInFlight), batchHandler, committed: committed, released: released))
    }

    private init(_ name: String?, queue: QueueSpec, prefetch: UInt16, maxAttempts: Int, runtime: ServiceRuntime, hooks: Hooks, work: Work) {
        self.work = work
        self.name = name ?? queue.name
        self.queue = queue
        self.prefetch = prefetch
        self.maxAttempts = max(1, maxAttempts)
        self.runtime = runtime
        self.hooks = hooks
        // Counted from now: the service is not ready until this stage consumes.
        runtime.readiness.register("consumer:\(queue.name)") { [probe] in probe.holds }
    }

    /// The name of this stage's consumer connection on the broker.
    public var connectionName: String { runtime.connection("stage:\(name)").name }

    public func run() async throws {
        let consumer = Consumer(configuration: runtime.connection("stage:\(name)"), queue: queue.name, prefetch: prefetch)
        probe.attach { consumer.isConnected }
        defer { runtime.readiness.remove("consumer:\(queue.name)") }
        let processor = Processor(
            stage: name, queue: queue, deadLetterExchange: queue.deadLetterExchange ?? runtime.deadLetterExchange,
            maxAttempts: maxAttempts, publisher: runtime.requirePublisher,
            work: work, hooks: hooks, logger: runtime.logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                switch work {
                case .single:
                    // Packs count by their elements: `prefetch` elements at once, not packs.
                    let budget = ElementBudget(limit: Int(prefetch))
                    for await message in consumer {
                        let taken = await budget.acquire(MessagePack.count(of: message.properties))
                        group.addTask {
                            await processor.process(message)
                            budget.release(taken)
                        }
                    }
                case .batch(let size, let inFlight, _, _, _):
                    // A slot first, then the batch: what arrived while every slot was taken
                    // is the next batch.
                    let slots = ElementBudget(limit: inFlight)
                    var messages = consumer.makeAsyncIterator()
                    while true {
                        let slot = await slots.acquire(1)
                        let batch = await messages.nextBatch(maxCount: size)
                        if batch.isEmpty { break }
                        group.addTask {
                            await processor.process(batch: batch)
                            slots.release(slot)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            consumer.stopConsuming()
        }
        await consumer.close(timeout: runtime.environment.shutdownTimeout)
        runtime.logger.info("stage stopped", metadata: ["stage": "\(name)"])
    }

    /// The per-message work, shared by the concurrent tasks of one stage.
    private struct Processor: Sendable {
        let stage: String
        let queue: QueueSpec
        /// The queue's dead-letter exchange, or the runtime's when the queue names none.
        let deadLetterExchange: String
        let maxAttempts: Int
        let publisher: Publisher
        let work: Work
        let hooks: Hooks
        let logger: Logger
        let processed: Counter
        let deadLettered: Counter
        let retried: Counter
        let commitFailures: Counter
        let duration: Metrics.Timer
        /// Failures in a row saying the service cannot work now: the backoff of the next.
        let unavailable = UnavailableStreak()
        let spans: StageSpans

        final class UnavailableStreak: Sendable {
            private let count = Mutex(0)
            /// The wait before trying again after one more such failure.
            func next() -> Duration { Processor.backoff.delay(attempt: count.withLock { value in defer { value += 1 }; return value }) }
            func reset() { count.withLock { $0 = 0 } }
        }

        init(stage: String, queue: QueueSpec, deadLetterExchange: String, maxAttempts: Int, publisher: Publisher, work: Work, hooks: Hooks, logger: Logger) {
            self.work = work
            self.stage = stage
            self.queue = queue
            self.deadLetterExchange = deadLetterExchange
            self.maxAttempts = maxAttempts
            self.publisher = publisher
            self.hooks = hooks
            self.logger = logger
            spans = StageSpans(queue: queue.name, stage: stage)
            processed = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "ok")])
            deadLettered = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "dead_lettered")])
            retried = Counter(label: "herald_stage_messages_total", dimensions: [("stage", stage), ("result", "retried")])
            commitFailures = Counter(label: "herald_stage_commit_failures_total", dimensions: [("stage", stage)])
            duration = Metrics.Timer(label: "herald_stage_duration_seconds", dimensions: [("stage", stage)], preferredDisplayUnit: .seconds)
        }

        /// One message in per-message mode: a contract, or a pack whose elements are handled
        /// concurrently, each as if it had come alone. Everything they emit is published
        /// together, and the message is acknowledged once all of it is confirmed. A lone
        /// input that fails is dead-lettered or requeued as it is; in a pack, a rejected
        /// element alone goes to the dead letters and a failed one alone back to the queue
        /// (`x-herald-attempts` counts it), published with the pack's outputs.
        func process(_ message: ReceivedMessage) async {
            guard case .single(let handler, let committed) = work else { return }
            let started = ContinuousClock.now
            defer { duration.record(duration: ContinuousClock.now - started) }
            let inputs: [Input]
            do {
                inputs = try Input.inputs(in: message)
            } catch {
                await deadLetter(message, reason: "undecodable: \(summary(of: error))")
                return
            }
            let results = await handle(inputs, of: message, with: handler)
            if !MessagePack.isPack(message.properties), case .failure(let error) = results[0] {
                if let error = error as? StageError, error.reason == .rejected {
                    await deadLetter(message, reason: "rejected: \(error.message)")
                } else {
                    await retry([message], after: error)
                }
                return
            }
            var outputs: [OutgoingMessage] = []
            var done: [Input] = []
            var failed: [(input: Input, element: Int, attempts: Int)] = []
            var lastError: (any Error)?
            var onlyUnavailable = true
            let attempt = Self.attempts(of: message) + 1
            do {
                for (index, (input, result)) in zip(inputs, results).enumerated() {
                    switch result {
                    case .success(let emissions):
                        outputs += emissions.map(\.message)
                        done.append(input)
                    case .failure(let error as StageError) where error.reason == .rejected:
                        outputs.append(try element(input, index, of: message, deadLettered: "rejected: \(error.message)"))
                        deadLettered.increment()
                    case .failure(let error) where StageError.isUnavailable(error):
                        // Not the input's fault: back to the queue, no attempt counted.
                        failed.append((input, index, attempt - 1))
                        lastError = error
                    case .failure(let error):
                        if attempt >= maxAttempts {
                            outputs.append(try element(input, index, of: message, deadLettered: "failed \(attempt) times, last: \(summary(of: error))"))
                            deadLettered.increment()
                        } else {
                            failed.append((input, index, attempt))
                            lastError = error
                            onlyUnavailable = false
                        }
                    }
                }
                if !failed.isEmpty {
                    logger.warning("stage inputs of a pack failed; requeueing them", metadata: [
                        "stage": "\(stage)", "failed": "\(failed.count)", "attempt": "\(attempt)", "error": "\(lastError.map { summary(of: $0) } ?? "-")",
                    ])
                    retried.increment(by: Int64(failed.count))
                    try? await Task.sleep(for: onlyUnavailable ? unavailable.next() : Self.backoff.delay(attempt: attempt - 1))
                    for (input, index, attempts) in failed {
                        let alone = try input.message(headers: MessagePack.traceHeaders(of: message.properties, element: index))
                        outputs.append(requeued(alone.body, properties: alone.properties, attempts: attempts, of: message))
                    }
                } else {
                    unavailable.reset()
                }
                try await publisher.publish(contentsOf: MessagePack.pack(outputs))
                if let afterPublish = hooks.afterPublish { await afterPublish(message) }
                if let committed { await commitAfterPublish(message.properties.messageId) { for input in done { try await committed(input) } } }
                message.ack()
                processed.increment(by: Int64(done.count))
            } catch {
                await retry([message], after: error)
            }
        }

        /// The handler's answer for each input of `message`, in order, each in its span; a lone
        /// input without a task group.
        private func handle(_ inputs: [Input], of message: ReceivedMessage, with handler: @escaping Handler) async -> [Result<[Emission], any Error>] {
            let spans = spans
            @Sendable func one(_ index: Int, _ input: Input) async -> Result<[Emission], any Error> {
                do { return .success(try await spans.run(input, element: index, of: message) { try await handler(input) }) } catch { return .failure(error) }
            }
            if inputs.count == 1 { return [await one(0, inputs[0])] }
            return await withTaskGroup(of: (Int, Result<[Emission], any Error>).self) { group in
                for (index, input) in inputs.enumerated() {
                    group.addTask { (index, await one(index, input)) }
                }
                var results: [(index: Int, result: Result<[Emission], any Error>)] = []
                results.reserveCapacity(inputs.count)
                for await answer in group { results.append(answer) }
                return results.sorted { $0.index < $1.index }.map(\.result)
            }
        }

        /// Runs a `committed` step once the outputs are confirmed. Its failure is no reason to
        /// publish them again, so it is tried again here (up to `maxAttempts`, with the
        /// stage's backoff); if it still fails, the input is acknowledged anyway with an error
        /// logged and counted: redelivering it would send every output a second time. Answers
        /// whether the step succeeded.
        @discardableResult
        private func commitAfterPublish(_ what: String?, _ step: () async throws -> Void) async -> Bool {
            let failure = await Self.backoff.retrying(attempts: maxAttempts, counts: { !StageError.isUnavailable($0) }, failed: { attempt, error in
                logger.warning("stage commit failed", metadata: [
                    "stage": "\(stage)", "input": "\(what ?? "-")", "attempt": "\(attempt)", "error": "\(summary(of: error))",
                ])
            }, step)
            guard let failure else { return true }
            logger.error("stage commit failed after the outputs were confirmed; acknowledging without it", metadata: [
                "stage": "\(stage)", "input": "\(what ?? "-")", "attempts": "\(maxAttempts)", "error": "\(failure)",
            ])
            commitFailures.increment()
            return false
        }

        /// The wait before a failed input, element or commit is tried again.
        static var backoff: Backoff { Backoff(initial: .milliseconds(100), maximum: .seconds(5)) }

        /// Counts the attempts of an input put back on its queue as a message of its own.
        static var attemptsHeader: String { "x-herald-attempts" }

        /// Earlier deliveries of `message`: the broker's count, plus the attempts its
        /// elements had in the pack they came from. Each is held to 0…2^20 (far beyond any
        /// `maxAttempts`), so a header published with a huge number cannot overflow the sum.
        static func attempts(of message: ReceivedMessage) -> Int {
            let bound = 1 << 20
            let earlier = Int(clamping: message.properties.headers[attemptsHeader]?.intValue ?? 0)
            return min(max(0, message.deliveryCount), bound) + min(max(0, earlier), bound)
        }

        /// Element `index` of a pack, alone, for the dead-letter exchange with the reason
        /// headers and its own trace context.
        private func element(_ input: Input, _ index: Int, of message: ReceivedMessage, deadLettered reason: String) throws -> OutgoingMessage {
            logger.error("stage input dead-lettered", metadata: [
                "stage": "\(stage)", "messageId": "\(input.messageId)", "reason": "\(reason)",
            ])
            let trace = MessagePack.traceHeaders(of: message.properties, element: index)
            spans.deadLettered(headers: trace, to: deadLetterExchange, reason: reason)
            let alone = try input.message(headers: reasonHeaders(reason, of: message).merging(trace) { $1 })
            return OutgoingMessage(
                exchange: deadLetterExchange, routingKey: Self.originalRoutingKey(of: message), body: alone.body, properties: alone.properties)
        }

        /// A batch: the undecodable inputs are dead-lettered on their own; the rest are
        /// handled, published, committed and acknowledged together.
        func process(batch: [ReceivedMessage]) async {
            guard case .batch(_, _, let handler, let committed, let released) = work else { return }
            let started = ContinuousClock.now
            var messages: [ReceivedMessage] = []
            var inputs: [Input] = []
            var origins: [(message: ReceivedMessage, element: Int)] = []
            messages.reserveCapacity(batch.count)
            inputs.reserveCapacity(batch.count)
            for message in batch {
                do {
                    let these = try Input.inputs(in: message)
                    inputs += these
                    if HeraldTracing.isEnabled { origins += these.indices.map { (message, $0) } }
                    messages.append(message)
                } catch {
                    await deadLetter(message, reason: "undecodable: \(summary(of: error))")
                }
            }
            guard !inputs.isEmpty else { return }
            // Each input's consumer span, open until the batch is settled.
            let inputSpans = origins.enumerated().map { spans.start(inputs[$0.offset], element: $0.element.element, of: $0.element.message, batch: inputs.count) }
            defer { for span in inputSpans { span?.end() } }
            var owned: [Input]?
            do {
                var emissions = inputSpans.isEmpty
                    ? try await handler(inputs)
                    : try await StageTrace.$inputs.withValue(inputSpans.map { $0?.context ?? .topLevel }) { try await handler(inputs) }
                guard emissions.count == inputs.count else {
                    throw StageError(.transient, "the batch handler answered \(emissions.count) results for \(inputs.count) inputs")
                }
                for (index, span) in inputSpans.enumerated() { emissions[index] = emissions[index].map { StageSpans.stamped($0, with: span) } }
                owned = zip(inputs, emissions).compactMap { $1 == nil ? nil : $0 }
                try await publisher.publish(contentsOf: MessagePack.pack(emissions.flatMap { ($0 ?? []).map(\.message) }))
                if let afterPublish = hooks.afterPublish {
                    for message in messages { await afterPublish(message) }
                }
                if let committed, let owned, !owned.isEmpty, await !commitAfterPublish("a batch of \(owned.count)", { try await committed(owned) }) {
                    // Left claimed, every later copy would wait for a batch that is gone.
                    if let released { await released(owned) }
                }
                for message in messages { message.ack() }
                processed.increment(by: Int64(inputs.count))
                unavailable.reset()
            } catch let error as StageError where error.reason == .rejected {
                for span in inputSpans { StageSpans.failed(span, error) }
                if let owned, let released { await released(owned) }
                for message in messages { await deadLetter(message, reason: "rejected: \(error.message)") }
            } catch {
                for span in inputSpans { StageSpans.failed(span, error) }
                if let owned, let released { await released(owned) }
                await retry(messages, after: error)
            }
            let elapsed = ContinuousClock.now - started
            for _ in messages { duration.record(duration: elapsed) }
        }

        /// Requeues after a short backoff (one wait for the whole batch), or dead-letters
        /// the inputs whose attempts are spent. When the error says the service cannot work
        /// now, no attempt is counted and nothing is dead-lettered. A requeued input is published again to the
        /// back of its queue with its attempts so far in `x-herald-attempts` (and where it
        /// first came from), then acknowledged: the count does not depend on the broker
        /// counting a `basic.nack` as a delivery (RabbitMQ 4.3 no longer does). Should that
        /// publish fail, the input is nacked back to the broker instead.
        private func retry(_ messages: [ReceivedMessage], after error: any Error) async {
            var requeue: [(message: ReceivedMessage, attempts: Int)] = []
            var attempt = 1
            let waits = StageError.isUnavailable(error)
            for message in messages {
                let attempts = Self.attempts(of: message) + (waits ? 0 : 1)
                if !waits && attempts >= maxAttempts {
                    await deadLetter(message, reason: "failed \(attempts) times, last: \(summary(of: error))")
                    continue
                }
                logger.warning(waits ? "the service cannot work now; requeueing without counting an attempt" : "stage input failed; requeueing", metadata: [
                    "stage": "\(stage)", "messageId": "\(message.properties.messageId ?? "-")",
                    "attempt": "\(attempts)", "error": "\(summary(of: error))",
                ])
                attempt = max(attempt, attempts)
                requeue.append((message, attempts))
            }
            guard !requeue.isEmpty else { return }
            retried.increment(by: Int64(requeue.count))
            try? await Task.sleep(for: waits ? unavailable.next() : Self.backoff.delay(attempt: attempt - 1))
            let again = requeue.map { requeued($0.message.body, properties: $0.message.properties, attempts: $0.attempts, of: $0.message) }
            do {
                try await publisher.publish(contentsOf: again)
                for entry in requeue { entry.message.ack() }
            } catch {
                logger.warning("requeueing by publishing failed; returning the inputs to the broker", metadata: ["error": "\(summary(of: error))"])
                for entry in requeue { entry.message.nack(requeue: true) }
            }
        }

        /// `body` (an input of `message`, or all of it) for the back of this stage's queue,
        /// with its attempts so far and the exchange and routing key it first came with.
        private func requeued(_ body: Data, properties: MessageProperties, attempts: Int, of message: ReceivedMessage) -> OutgoingMessage {
            var properties = properties
            properties.headers[Self.attemptsHeader] = .int(Int64(attempts))
            properties.headers[Self.originHeaders.exchange] = message.properties.headers[Self.originHeaders.exchange] ?? .string(message.exchange)
            properties.headers[Self.originHeaders.routingKey] = .string(Self.originalRoutingKey(of: message))
            return OutgoingMessage(exchange: "", routingKey: queue.name, body: body, properties: properties, mandatory: true)
        }

        /// Where a requeued input was first published, kept in headers while it goes round
        /// its own queue, so a dead letter names the original exchange and routing key.
        static var originHeaders: (exchange: String, routingKey: String) { ("x-herald-exchange", "x-herald-routing-key") }

        /// The routing key `message` first came with.
        static func originalRoutingKey(of message: ReceivedMessage) -> String {
            message.properties.headers[originHeaders.routingKey]?.stringValue ?? message.routingKey
        }

        /// Why and where an input was dead-lettered, as headers, with the exchange and
        /// routing key it first came with, where a replay (`heraldctl dead-letters replay`)
        /// sends it back.
        private func reasonHeaders(_ reason: String, of message: ReceivedMessage) -> [String: HeaderValue] {
            [
                "x-herald-reason": .string(reason), "x-herald-stage": .string(stage), "x-herald-queue": .string(queue.name),
                "x-herald-dead-lettered-at": .string(UTCTimestamp.format(Date())),
                Self.originHeaders.exchange: message.properties.headers[Self.originHeaders.exchange] ?? .string(message.exchange),
                Self.originHeaders.routingKey: .string(Self.originalRoutingKey(of: message)),
            ]
        }

        /// Publishes the input, untouched but for reason headers, to the queue's dead-letter
        /// exchange, then acknowledges it. If even that fails, the broker dead-letters it.
        private func deadLetter(_ message: ReceivedMessage, reason: String) async {
            logger.error("stage input dead-lettered", metadata: [
                "stage": "\(stage)", "messageId": "\(message.properties.messageId ?? "-")", "reason": "\(reason)",
            ])
            // Each element of a pack is in a trace of its own; the letter keeps all of them.
            for element in 0..<MessagePack.count(of: message.properties) {
                spans.deadLettered(headers: MessagePack.traceHeaders(of: message.properties, element: element), to: deadLetterExchange, reason: reason)
            }
            var properties = message.properties
            properties.headers.merge(reasonHeaders(reason, of: message)) { $1 }
            let letter = OutgoingMessage(
                exchange: deadLetterExchange, routingKey: Self.originalRoutingKey(of: message), body: message.body, properties: properties)
            do {
                try await publisher.publish(letter)
                message.ack()
            } catch {
                logger.error("dead-letter publish failed; rejecting to the broker's dead-letter exchange", metadata: ["error": "\(summary(of: error))"])
                message.nack(requeue: false)
            }
            deadLettered.increment()
        }
    }
}
