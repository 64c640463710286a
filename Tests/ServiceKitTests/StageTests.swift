import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import Testing

/// A stage between a fresh input work queue and a fresh output queue, on the real broker.
struct StageFixture {
    let work: WorkTopology
    let output: ExchangeSpec
    let outputQueue: QueueSpec
    let runtime: ServiceRuntime

    /// `kind`: the input queue's type (a classic queue keeps no delivery count).
    init(kind: QueueSpec.Kind = .quorum) throws {
        work = TestBroker.workTopology("stage", kind: kind)
        let id = UUID().uuidString.prefix(8)
        output = ExchangeSpec("test.out.\(id)", kind: .direct)
        outputQueue = QueueSpec("test.out.\(id)")
        let topology = work.topology.merged(with: AMQPTopology(
            exchanges: [output], queues: [outputQueue],
            bindings: [BindingSpec(exchange: output.name, queue: outputQueue.name, routingKey: "out")]))
        runtime = try ServiceRuntime(
            name: "test-stage-\(id)", defaultPort: 0,
            environment: ["HERALD_AMQP_URL": "\(TestBroker.urlString)", "HERALD_LOG_LEVEL": ProcessInfo.processInfo.environment["HERALD_TEST_LOG_LEVEL"] ?? "critical", "HERALD_SHUTDOWN_TIMEOUT": "10"],
            topology: topology)
    }

    static func event(_ id: String) -> NotificationEvent {
        NotificationEvent(id: id, app: "demo", source: .api, kind: "test", occurredAt: Date(), audience: .users(["u1"]))
    }

    func publishInput(_ event: NotificationEvent) async throws {
        try await runtime.requirePublisher.publish(OutgoingMessage(contract: event, exchange: work.exchange.name, routingKey: "work"))
    }

    func publishRaw(_ body: String, type: String = NotificationEvent.contractName, id: String) async throws {
        try await runtime.requirePublisher.publish(OutgoingMessage(
            exchange: work.exchange.name, routingKey: "work", body: Data(body.utf8),
            properties: MessageProperties(type: type, messageId: id)))
    }

    /// A stage that re-publishes each event to the output queue, unless `handler` says otherwise.
    /// `afterPublish` runs between publishing an input's outputs and acknowledging it.
    func stage(
        maxAttempts: Int = 5, handler: (@Sendable (NotificationEvent) async throws -> Void)? = nil,
        afterPublish: (@Sendable (ReceivedMessage) async -> Void)? = nil
    ) -> Stage<NotificationEvent> {
        let output = output
        let republish: Stage<NotificationEvent>.Handler = { event in
            try await handler?(event)
            return [try .publish(event, to: output, routingKey: "out")]
        }
        guard let afterPublish else {
            return Stage(consuming: work.queue, prefetch: 8, maxAttempts: maxAttempts, runtime: runtime, handler: republish)
        }
        return Stage.withHooks(consuming: work.queue, prefetch: 8, maxAttempts: maxAttempts, runtime: runtime, afterPublish: afterPublish, handler: republish)
    }

    /// Runs `stage` in a service group; returns the group to shut it down gracefully.
    func start(_ stage: Stage<NotificationEvent>) -> (ServiceGroup, Task<Void, any Error>) {
        let group = ServiceGroup(services: [stage], logger: Logger(label: "test"))
        return (group, Task { try await group.run() })
    }

    /// Collects what reaches a queue.
    func collect(_ queue: QueueSpec) -> Collector {
        Collector(runtime.connection("collect:\(queue.name)"), queue: queue.name)
    }

    func finish(_ group: ServiceGroup, _ running: Task<Void, any Error>, collectors: [Collector]) async throws {
        await group.triggerGracefulShutdown()
        try await running.value
        for collector in collectors { await collector.stop() }
        await runtime.requirePublisher.close()
        await work.cleanUp()
        try? await TestBroker.admin.delete(queue: outputQueue.name)
    }
}

@Suite("The pipeline stage runner", .needs(.broker))
struct StageTests {
    @Test("outputs are confirmed before the input is acked: a stage stopped in between gets the input again, and nothing is lost")
    func outputsConfirmedBeforeAck() async throws {
        let fixture = try StageFixture()
        let calls = Inbox()
        let stage = fixture.stage(afterPublish: { message in
            await calls.add(message)
            if await calls.count == 1 {
                // The outputs are confirmed; the stage now dies before it can ack.
                try? await TestBroker.closeConnection(named: fixture.runtime.connection("stage:\(fixture.work.queue.name)").name)
            }
        })
        let outputsCollector = fixture.collect(fixture.outputQueue)
        let outputs = outputsCollector.inbox
        let (group, running) = fixture.start(stage)
        try await fixture.publishInput(StageFixture.event("e-1"))

        try await calls.waitUntil("the redelivered input to be processed") { $0.count == 2 }
        let attempts = await calls.messages
        #expect(attempts[1].redelivered)
        #expect(attempts.allSatisfy { $0.properties.messageId == "e-1" })
        // At least once: the output of the interrupted attempt and of the retry both arrived.
        try await outputs.waitUntil("both outputs") { $0.count == 2 }
        #expect(await outputs.ids == ["e-1", "e-1"])
        try await eventually("the input queue to drain") { try await TestBroker.admin.readyCount(fixture.work.queue.name) == 0 }
        #expect(try await TestBroker.admin.readyCount(fixture.work.deadQueue.name) == 0)
        try await fixture.finish(group, running, collectors: [outputsCollector])
    }

    @Test("an undecodable input is dead-lettered with its reason, and the stage carries on")
    func undecodableInputIsDeadLettered() async throws {
        let fixture = try StageFixture()
        let outputsCollector = fixture.collect(fixture.outputQueue)
        let outputs = outputsCollector.inbox
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let dead = deadCollector.inbox
        let (group, running) = fixture.start(fixture.stage())
        try await fixture.publishRaw("{not json", id: "broken-1")
        try await fixture.publishRaw(#"{"id":"e-2","app":"demo","source":"api","kind":"k","occurredAt":"2026-11-21T10:00:00Z","audience":{}}"#, id: "broken-2")
        try await fixture.publishInput(StageFixture.event("good"))

        try await dead.waitUntil("two dead letters") { $0.count == 2 }
        try await outputs.waitUntil("the good one") { $0.count == 1 }
        let letters = await dead.messages.sorted { ($0.properties.messageId ?? "") < ($1.properties.messageId ?? "") }
        #expect(letters[0].properties.messageId == "broken-1")
        #expect(letters[0].body == Data("{not json".utf8))
        #expect(letters[0].properties.headers["x-herald-reason"]?.stringValue?.hasPrefix("undecodable: herald.event.v1: not valid JSON") == true)
        #expect(letters[0].properties.headers["x-herald-queue"]?.stringValue == fixture.work.queue.name)
        #expect(letters[1].properties.headers["x-herald-reason"]?.stringValue?.contains("audience: must have exactly one of") == true)
        #expect(await outputs.ids == ["good"])
        try await fixture.finish(group, running, collectors: [outputsCollector, deadCollector])
    }

    @Test("an input of another contract type is dead-lettered naming both types")
    func wrongTypeIsDeadLettered() async throws {
        let fixture = try StageFixture()
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let dead = deadCollector.inbox
        let (group, running) = fixture.start(fixture.stage())
        try await fixture.publishRaw("{}", type: "herald.outcome.v1", id: "wrong")
        try await dead.waitUntil("the dead letter") { $0.count == 1 }
        #expect(await dead.messages[0].properties.headers["x-herald-reason"]?.stringValue == "undecodable: expected a herald.event.v1 message, got type \"herald.outcome.v1\"")
        try await fixture.finish(group, running, collectors: [deadCollector])
    }

    @Test("a commit that fails after the outputs are confirmed is tried again in place: the outputs are not published again")
    func aFailedCommitDoesNotRepublishTheOutputs() async throws {
        let fixture = try StageFixture()
        let commits = Tally()
        let handled = Tally()
        let output = fixture.output
        let stage = Stage<NotificationEvent>(consuming: fixture.work.queue, prefetch: 8, runtime: fixture.runtime, committed: { _ in
            await commits.add()
            if await commits.value == 1 { throw StageError.transient("database busy") }
        }) { event in
            await handled.add()
            return [try .publish(event, to: output, routingKey: "out")]
        }
        let (group, running) = fixture.start(stage)
        try await fixture.publishInput(StageFixture.event("e-commit"))
        try await eventually("the second commit") { await commits.value == 2 }
        try await eventually("the output") { try await TestBroker.admin.readyCount(fixture.outputQueue.name) >= 1 }
        #expect(try await TestBroker.admin.readyCount(fixture.outputQueue.name) == 1, "published once")
        #expect(await handled.value == 1)
        try await fixture.finish(group, running, collectors: [])
    }

    @Test("an input the handler rejects is dead-lettered with the handler's reason, without retries")
    func rejectedInputIsDeadLettered() async throws {
        let fixture = try StageFixture()
        let calls = Tally()
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let dead = deadCollector.inbox
        let (group, running) = fixture.start(fixture.stage { _ in
            await calls.add()
            throw StageError.rejected("app demo is not configured")
        })
        try await fixture.publishInput(StageFixture.event("e-3"))
        try await dead.waitUntil("the dead letter") { $0.count == 1 }
        let letter = await dead.messages[0]
        #expect(letter.properties.headers["x-herald-reason"]?.stringValue == "rejected: app demo is not configured")
        #expect(letter.properties.headers["x-herald-exchange"]?.stringValue == fixture.work.exchange.name, "the exchange it came with, for a replay")
        #expect(letter.properties.headers["x-herald-routing-key"]?.stringValue == letter.routingKey)
        #expect(await calls.value == 1)
        try await fixture.finish(group, running, collectors: [deadCollector])
    }

    @Test("each element of a pack is handled as if it came alone: a rejected one alone is dead-lettered, a failing one alone is retried, the rest pass once")
    func packElementsAreHandledOneByOne() async throws {
        let fixture = try StageFixture()
        let failures = Tally()
        let outCollector = fixture.collect(fixture.outputQueue)
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let (group, running) = fixture.start(fixture.stage { event in
            if event.id == "bad" { throw StageError.rejected("bad input") }
            if event.id == "flaky", await failures.value == 0 {
                await failures.add()
                throw StageError.transient("not yet")
            }
        })
        let events = ["a", "bad", "flaky", "b"].map(StageFixture.event)
        let messages = try events.map { try OutgoingMessage(contract: $0, exchange: fixture.work.exchange.name, routingKey: "work") }
        let packed = MessagePack.pack(messages)
        #expect(packed.count == 1, "four events for one exchange and key travel as one message")
        try await fixture.runtime.requirePublisher.publish(contentsOf: packed)
        try await outCollector.inbox.waitUntil("a, b and flaky") { $0.count == 3 }
        try await deadCollector.inbox.waitUntil("the rejected element") { $0.count == 1 }
        let dead = await deadCollector.inbox.messages[0]
        #expect(try dead.decode(NotificationEvent.self).id == "bad")
        #expect(dead.properties.headers["x-herald-reason"]?.stringValue == "rejected: bad input")
        // Where it came from, for a replay: the pack's exchange and key, not herald.dead's.
        #expect(dead.properties.headers["x-herald-exchange"]?.stringValue == fixture.work.exchange.name)
        #expect(dead.properties.headers["x-herald-routing-key"]?.stringValue == "work")
        #expect(Set(try await outCollector.inbox.messages.map { try $0.decode(NotificationEvent.self).id }) == ["a", "b", "flaky"])
        #expect(await failures.value == 1)
        try await fixture.finish(group, running, collectors: [outCollector, deadCollector])
    }

    @Test("a batch stage handles an input at once when idle, and what arrives while its batches are in flight as the next batch")
    func batchesGatherWhileOthersAreInFlight() async throws {
        let fixture = try StageFixture()
        let batches = CommittedIds()
        let firstHeld = Gate()
        let output = fixture.output
        let outCollector = fixture.collect(fixture.outputQueue)
        let stage = Stage<NotificationEvent>(
            consuming: fixture.work.queue, prefetch: 32, batchSize: 16, batchesInFlight: 1, runtime: fixture.runtime
        ) { events in
            await batches.add([events.map(\.id).joined(separator: ",")])
            if events.map(\.id) == ["first"] { await firstHeld.wait() }
            return try events.map { [try .publish($0, to: output, routingKey: "out")] }
        }
        let (group, running) = fixture.start(stage)
        // Idle: the lone input is a batch of its own, with no wait for company.
        try await fixture.publishInput(StageFixture.event("first"))
        try await eventually("the first batch in flight") { await batches.ids == ["first"] }
        // Busy (its one batch held): what arrives meanwhile waits, then goes as one batch.
        for id in ["b", "c", "d"] { try await fixture.publishInput(StageFixture.event(id)) }
        try await eventually("b, c and d delivered to the stage") { try await TestBroker.admin.readyCount(fixture.work.queue.name) == 0 }
        #expect(await batches.ids == ["first"], "nothing else handled while the only slot is taken")
        await firstHeld.open()
        try await outCollector.inbox.waitUntil("every output") { $0.count == 4 }
        #expect(await batches.ids == ["first", "b,c,d"])
        try await fixture.finish(group, running, collectors: [outCollector])
    }

    @Test("in a batch, an input the handler skips (a copy another batch holds) is acknowledged but neither committed nor released")
    func skippedBatchInputsAreNotCommitted() async throws {
        let fixture = try StageFixture()
        let committed = CommittedIds()
        let output = fixture.output
        let outCollector = fixture.collect(fixture.outputQueue)
        let stage = Stage<NotificationEvent>(
            consuming: fixture.work.queue, prefetch: 16, batchSize: 16, runtime: fixture.runtime,
            committed: { events in await committed.add(events.map(\.id)) }
        ) { events in
            try events.map { event in event.id.hasPrefix("skip") ? nil : [try .publish(event, to: output, routingKey: "out")] }
        }
        let (group, running) = fixture.start(stage)
        for id in ["a", "skip-1", "b"] { try await fixture.publishInput(StageFixture.event(id)) }
        try await outCollector.inbox.waitUntil("a and b") { $0.count == 2 }
        try await eventually("a and b committed") { await committed.ids.count >= 2 }
        try await eventually("every input acknowledged") { try await TestBroker.admin.readyCount(fixture.work.queue.name) == 0 }
        #expect(await committed.ids.sorted() == ["a", "b"])
        try await fixture.finish(group, running, collectors: [outCollector])
    }

    /// The batch stays claimed in its store until it is committed or released: a commit that
    /// never succeeds must still end the claims, or every later copy of those inputs waits
    /// for a batch that is gone and is dead-lettered.
    @Test("in a batch, inputs whose commit fails for good are released once acknowledged")
    func aBatchWhoseCommitFailsForGoodIsReleased() async throws {
        let fixture = try StageFixture()
        let commits = Tally()
        let released = CommittedIds()
        let output = fixture.output
        let outCollector = fixture.collect(fixture.outputQueue)
        let stage = Stage<NotificationEvent>(
            consuming: fixture.work.queue, prefetch: 16, batchSize: 16, maxAttempts: 2, runtime: fixture.runtime,
            committed: { _ in
                await commits.add()
                throw StageError.transient("the store refused the commit")
            },
            released: { events in await released.add(events.map(\.id)) }
        ) { events in
            try events.map { [try .publish($0, to: output, routingKey: "out")] }
        }
        let (group, running) = fixture.start(stage)
        try await fixture.publishInput(StageFixture.event("e-never-committed"))
        try await outCollector.inbox.waitUntil("the output") { $0.count == 1 }
        try await eventually("the claims released") { await released.ids == ["e-never-committed"] }
        #expect(await commits.value == 2, "tried up to its attempts")
        try await eventually("the input acknowledged") { try await TestBroker.admin.readyCount(fixture.work.queue.name) == 0 }
        #expect(await outCollector.inbox.messages.count == 1, "published once")
        try await fixture.finish(group, running, collectors: [outCollector])
    }

    @Test("a transient failure is retried until it succeeds")
    func transientFailureIsRetried() async throws {
        let fixture = try StageFixture()
        let calls = Tally()
        let outputsCollector = fixture.collect(fixture.outputQueue)
        let outputs = outputsCollector.inbox
        let (group, running) = fixture.start(fixture.stage { _ in
            await calls.add()
            if await calls.value < 3 { throw StageError.transient("store busy") }
        })
        try await fixture.publishInput(StageFixture.event("e-4"))
        try await outputs.waitUntil("the output after two failures") { $0.count == 1 }
        #expect(await calls.value == 3)
        #expect(try await TestBroker.admin.readyCount(fixture.work.deadQueue.name) == 0)
        try await fixture.finish(group, running, collectors: [outputsCollector])
    }

    /// A full disk or a database that does not answer is no fault of the input: dead-lettering
    /// it after a few quick attempts would lose a notification to a 10-second outage.
    @Test("an input failing because the service cannot work now is retried past its attempts until the service recovers, never dead-lettered")
    func unavailableServiceIsWaitedOut() async throws {
        let fixture = try StageFixture()
        let calls = Tally()
        let outputsCollector = fixture.collect(fixture.outputQueue)
        let (group, running) = fixture.start(fixture.stage(maxAttempts: 2) { _ in
            await calls.add()
            if await calls.value < 6 { throw StageError.unavailable("the store's disk is full") }
        })
        try await fixture.publishInput(StageFixture.event("e-full"))
        try await outputsCollector.inbox.waitUntil("the output once the store recovered") { $0.count == 1 }
        #expect(await calls.value == 6)
        #expect(try await TestBroker.admin.readyCount(fixture.work.deadQueue.name) == 0)
        try await fixture.finish(group, running, collectors: [outputsCollector])
    }

    /// A broker that refuses the outputs (`basic.nack`: a full queue, or a quorum queue
    /// electing its leader after a node stopped) is no fault of the input either.
    @Test("an input whose outputs the broker refuses is retried past its attempts until the broker takes them, never dead-lettered")
    func refusedOutputsAreWaitedOut() async throws {
        let fixture = try StageFixture()
        // The output queue is over its length limit, so the broker refuses (`basic.nack`)
        // every output until the policy is cleared.
        let policy = "refuse-\(fixture.outputQueue.name)"
        try await TestBroker.admin.declare(AMQPTopology(queues: [fixture.outputQueue]))
        try await TestBroker.rabbitmqctl(
            "set_policy", "--apply-to", "queues", policy, "^\(fixture.outputQueue.name.replacingOccurrences(of: ".", with: "\\."))$",
            #"{"max-length":0,"overflow":"reject-publish"}"#)
        try await eventually("the policy on the output queue") {
            try await TestBroker.rabbitmqctl("list_queues", "name", "policy").split(separator: "\n").contains("\(fixture.outputQueue.name)\t\(policy)")
        }
        // A quorum queue takes messages until it holds more than its limit: fill it until it refuses.
        var fillers: [String] = []
        while true {
            let id = "filler-\(fillers.count)"
            do {
                try await fixture.runtime.requirePublisher.publish(OutgoingMessage(
                    exchange: "", routingKey: fixture.outputQueue.name, body: Data(id.utf8), properties: MessageProperties(messageId: id)))
            } catch let error as MessagingError where error.reason == .publishRejected {
                break
            }
            fillers.append(id)
            guard fillers.count < 5 else { throw TestFailure("the output queue never refused a message") }
        }
        let calls = Tally()
        let (group, running) = fixture.start(fixture.stage(maxAttempts: 2) { _ in await calls.add() })
        try await fixture.publishInput(StageFixture.event("e-refused"))
        let refused: Bool
        do {
            try await eventually(timeout: .seconds(60), "the input handled past its two attempts") { await calls.value >= 4 }
            refused = true
        } catch {
            refused = false
        }
        try await TestBroker.rabbitmqctl("clear_policy", policy)
        let outputsCollector = fixture.collect(fixture.outputQueue)
        if refused {
            let fillers = fillers
            try await outputsCollector.inbox.waitUntil("the output once the broker takes it") { $0.count == fillers.count + 1 }
            #expect(await outputsCollector.inbox.ids == fillers + ["e-refused"])
        }
        #expect(try await TestBroker.admin.readyCount(fixture.work.deadQueue.name) == 0, "the input was dead-lettered")
        let handled = await calls.value
        try await fixture.finish(group, running, collectors: [outputsCollector])
        #expect(refused, "the input was handled \(handled) times, not past its attempts")
    }

    @Test("in a pack, an element failing because the service cannot work now is retried past its attempts too")
    func unavailableServiceIsWaitedOutForPackElements() async throws {
        let fixture = try StageFixture()
        let calls = Tally()
        let outCollector = fixture.collect(fixture.outputQueue)
        let (group, running) = fixture.start(fixture.stage(maxAttempts: 2) { event in
            guard event.id == "waits" else { return }
            await calls.add()
            if await calls.value < 5 { throw StageError.unavailable("the database does not answer") }
        })
        let messages = try ["a", "waits"].map { try OutgoingMessage(contract: StageFixture.event($0), exchange: fixture.work.exchange.name, routingKey: "work") }
        try await fixture.runtime.requirePublisher.publish(contentsOf: MessagePack.pack(messages))
        try await outCollector.inbox.waitUntil("both outputs") { $0.count == 2 }
        #expect(await calls.value == 5)
        #expect(try await TestBroker.admin.readyCount(fixture.work.deadQueue.name) == 0)
        try await fixture.finish(group, running, collectors: [outCollector])
    }

    @Test("a commit failing because the service cannot work now is tried past its attempts until it succeeds")
    func unavailableCommitIsWaitedOut() async throws {
        let fixture = try StageFixture()
        let commits = Tally()
        let output = fixture.output
        let outCollector = fixture.collect(fixture.outputQueue)
        let stage = Stage<NotificationEvent>(consuming: fixture.work.queue, prefetch: 8, maxAttempts: 2, runtime: fixture.runtime, committed: { (_: NotificationEvent) in
            await commits.add()
            if await commits.value < 5 { throw StageError.unavailable("the store's disk is full") }
        }) { event in
            [try .publish(event, to: output, routingKey: "out")]
        }
        let (group, running) = fixture.start(stage)
        try await fixture.publishInput(StageFixture.event("e-commit-full"))
        try await eventually("the fifth commit") { await commits.value == 5 }
        try await outCollector.inbox.waitUntil("the output") { $0.count == 1 }
        #expect(await outCollector.inbox.messages.count == 1, "published once")
        try await fixture.finish(group, running, collectors: [outCollector])
    }

    /// The stage counts the attempts itself, so a classic queue, whose broker counts no
    /// redeliveries, bounds them as a quorum queue does.
    @Test("a failure that persists is dead-lettered after the last attempt, with the last error and its routing key",
          arguments: [QueueSpec.Kind.quorum, .classic])
    func persistentFailureIsBounded(kind: QueueSpec.Kind) async throws {
        let fixture = try StageFixture(kind: kind)
        let calls = Tally()
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let dead = deadCollector.inbox
        let (group, running) = fixture.start(fixture.stage(maxAttempts: 3) { _ in
            await calls.add()
            throw StageError.transient("provider down")
        })
        try await fixture.publishInput(StageFixture.event("e-5"))
        try await dead.waitUntil("the dead letter") { $0.count == 1 }
        #expect(await calls.value == 3)
        let letter = await dead.messages[0]
        #expect(letter.properties.headers["x-herald-reason"]?.stringValue == "failed 3 times, last: transient: provider down")
        #expect(letter.routingKey == "work")
        try await fixture.finish(group, running, collectors: [deadCollector])
    }

    /// An error whose description says nothing (postgres-nio's `PSQLError` prints a generic
    /// sentence by design) is named by its summary in the dead letter's reason.
    struct Opaque: SummarizedError, CustomStringConvertible {
        var description: String { "Generic description to prevent accidental leakage of sensitive data" }
        var summary: String { "PostgreSQL: relation \"devices\" does not exist (SQLSTATE 42P01)" }
    }

    @Test("a dead letter's reason names an error by its summary when it has one")
    func deadLetterReasonUsesTheSummary() async throws {
        let fixture = try StageFixture(kind: .quorum)
        let deadCollector = fixture.collect(fixture.work.deadQueue)
        let dead = deadCollector.inbox
        let (group, running) = fixture.start(fixture.stage(maxAttempts: 2) { _ in throw Opaque() })
        try await fixture.publishInput(StageFixture.event("e-6"))
        try await dead.waitUntil("the dead letter") { $0.count == 1 }
        let letter = await dead.messages[0]
        #expect(letter.properties.headers["x-herald-reason"]?.stringValue
            == "failed 2 times, last: PostgreSQL: relation \"devices\" does not exist (SQLSTATE 42P01)")
        try await fixture.finish(group, running, collectors: [deadCollector])
    }

    @Test("graceful shutdown lets in-flight inputs finish, publish and ack")
    func gracefulShutdownFinishesInFlight() async throws {
        let fixture = try StageFixture()
        let release = Gate()
        let started = Tally()
        let outputsCollector = fixture.collect(fixture.outputQueue)
        let outputs = outputsCollector.inbox
        let (group, running) = fixture.start(fixture.stage { _ in
            await started.add()
            await release.wait()
        })
        for i in 0..<3 { try await fixture.publishInput(StageFixture.event("e-6-\(i)")) }
        try await eventually("three inputs in flight") { await started.value == 3 }
        await group.triggerGracefulShutdown()
        await release.open()
        try await running.value
        try await outputs.waitUntil("the three outputs") { $0.count == 3 }
        #expect(try await TestBroker.admin.readyCount(fixture.work.queue.name) == 0)
        await outputsCollector.stop()
        await fixture.runtime.requirePublisher.close()
        await fixture.work.cleanUp()
        try? await TestBroker.admin.delete(queue: fixture.outputQueue.name)
    }
}

/// The input ids a batch stage committed.
actor CommittedIds {
    var ids: [String] = []
    func add(_ more: [String]) { ids += more }
}
