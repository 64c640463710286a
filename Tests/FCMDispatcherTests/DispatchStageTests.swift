import DispatchKit
import FCM
import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle
import Synchronization
import Testing
import StageTestSupport

/// The FCM dispatcher's stage on the real broker and the sandbox, between private queues,
/// with private delay tiers that dead-letter back to its private dispatch exchange.
struct DispatchFixture {
    let harness: StageHarness
    /// The replica set's record stream, private to the fixture.
    let sent: QueueSpec

    init() throws {
        let id = UUID().uuidString.prefix(8)
        let sent = QueueSpec("test.fcm.sent.\(id)", kind: .stream, maxAge: "1h")
        self.sent = sent
        harness = try StageHarness(
            "fcm", exchanges: ["retry": .direct, "control": .topic, "outcomes": .topic],
            queues: ["outcomes": ("outcomes", "#"), "revocations": ("control", "token.revoked")],
            extra: { work, exchanges in
                // A private dispatch exchange feeding the input, and delay tiers feeding it.
                let dispatch = ExchangeSpec("test.fcm.dispatch.\(id)", kind: .direct)
                let tiers = HeraldTopology.retryTiers.map {
                    ($0, QueueSpec("test.fcm.retry.\(id).\($0.label)", deadLetterExchange: dispatch.name, deadLetterRoutingKey: "fcm", messageTTLMilliseconds: Int64($0.seconds) * 1000))
                }
                return AMQPTopology(
                    exchanges: [dispatch], queues: tiers.map(\.1) + [sent],
                    bindings: [BindingSpec(exchange: dispatch.name, queue: work.queue.name, routingKey: "fcm")]
                        + tiers.map { BindingSpec(exchange: exchanges["retry"]!.name, queue: $1.name, routingKey: HeraldTopology.retryRoutingKey(.fcm, $0)) })
            })
    }

    var routes: DispatchStage.Routes {
        DispatchStage.Routes(
            platform: .fcm, input: harness.work.queue, retry: harness.exchanges["retry"]!, control: harness.exchanges["control"]!,
            outcomes: harness.exchanges["outcomes"]!, sent: sent)
    }

    func stage(_ client: FCMClient, runtime: ServiceRuntime? = nil) -> Stage<DispatchRequest> {
        DispatchStage.make(runtime: runtime ?? harness.runtime, platform: .fcm, routes: routes, batching: .init(prefetch: 50), send: client.send)
    }
}

@Suite("The FCM dispatch stage", .needs(.broker))
struct DispatchStageTests {
    @Test func deliveredAndDeadTokensBecomeOutcomesAndARevocation() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let fixture = try DispatchFixture()
        let good = FCMTestSandbox.request(token: "good-1")
        let dead = FCMTestSandbox.request(token: "unregistered-1")
        try await fixture.harness.run([fixture.stage(sandbox.client(transport: transport))], collecting: ["outcomes", "revocations"]) { collectors in
            try await fixture.harness.publish(good)
            try await fixture.harness.publish(dead)
            try await collectors[0].inbox.waitUntil("two outcomes") { $0.count == 2 }
            try await collectors[1].inbox.waitUntil("one revocation") { $0.count == 1 }
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            #expect(outcomes.first { $0.deliveryId == good.deliveryId }?.status == .delivered)
            let revokedOutcome = outcomes.first { $0.deliveryId == dead.deliveryId }
            #expect(revokedOutcome?.status == .revoked && revokedOutcome?.providerCode == "UNREGISTERED")
            let revocation = try #require(await collectors[1].inbox.messages.first).decode(TokenRevoked.self)
            #expect(revocation.token == "unregistered-1" && revocation.platform == .fcm && revocation.reason == "UNREGISTERED")
            #expect(revocation.deviceId == dead.deviceId && revocation.deliveryId == dead.deliveryId)
        }
        await transport.close()
        await sandbox.stop()
    }

    /// A request that comes back after it was delivered (its outcome never got out, or its
    /// dispatcher died before acknowledging it) is not sent again, even by another replica
    /// that started after the send: it reads what the replica set delivered from the stream.
    @Test func aRequestDeliveredByOneReplicaIsNotSentAgainByAnother() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let fixture = try DispatchFixture()
        let request = FCMTestSandbox.request(token: "good-once")
        let recordA = SentRecord()
        try await fixture.harness.run([
            SentRecordFollower(stream: fixture.sent, record: recordA, runtime: fixture.harness.runtime),
            DispatchStage.make(runtime: fixture.harness.runtime, platform: .fcm, routes: fixture.routes, batching: .init(prefetch: 10), record: recordA, send: sandbox.client(transport: transport).send),
        ], collecting: ["outcomes"], cleanUp: false) { collectors in
            try await fixture.harness.publish(request)
            try await collectors[0].inbox.waitUntil("the outcome") { $0.count == 1 }
            #expect(try await collectors[0].inbox.messages[0].decode(Outcome.self).status == .delivered)
        }
        #expect(sandbox.state.messages(provider: "fcm", token: "good-once").count == 1)

        // Replica B starts afterwards, with a record of its own, and gets the same request again.
        let runtime = try fixture.harness.newRuntime()
        let recordB = SentRecord()
        let outcomes = Collector(runtime.connection("collect"), queue: fixture.harness.queues["outcomes"]!.name)
        let group = ServiceGroup(services: [
            SentRecordFollower(stream: fixture.sent, record: recordB, runtime: runtime),
            DispatchStage.make(runtime: runtime, platform: .fcm, routes: fixture.routes, batching: .init(prefetch: 10), record: recordB, send: sandbox.client(transport: transport).send),
        ], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        do {
            try await eventually("replica B to read what replica A delivered") { recordB.contains(request.deliveryId) }
            try await runtime.requirePublisher.publish(OutgoingMessage(contract: request, exchange: fixture.harness.work.exchange.name, routingKey: "work"))
            try await outcomes.inbox.waitUntil("the second outcome") { $0.count == 1 }
            let outcome = try await outcomes.inbox.messages[0].decode(Outcome.self)
            #expect(outcome.status == .delivered && outcome.reason == "delivered before; not sent again")
            #expect(sandbox.state.messages(provider: "fcm", token: "good-once").count == 1, "sent once")
        } catch {
            Issue.record(error)
        }
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        await outcomes.stop()
        await runtime.requirePublisher.close()
        await fixture.harness.cleanUp()
        await transport.close()
        await sandbox.stop()
    }

    /// After a broker restart a request can be in the queue twice (the copy its stage could
    /// not acknowledge, and the copy Registration published again), and both can be taken
    /// in one prefetch: the second must not be sent while the first is in flight.
    @Test func twoCopiesOfARequestHandledAtOnceAreSentOnce() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let fixture = try DispatchFixture()
        let request = FCMTestSandbox.request(token: "slow-300-twice")
        let record = SentRecord()
        try await fixture.harness.run([
            DispatchStage.make(runtime: fixture.harness.runtime, platform: .fcm, routes: fixture.routes, batching: .init(prefetch: 10), record: record, send: sandbox.client(transport: transport).send),
        ], collecting: ["outcomes"]) { collectors in
            try await fixture.harness.publish(request)
            try await fixture.harness.publish(request)
            // Each copy reports an outcome: the one sent, and the other once that send is over.
            try await collectors[0].inbox.waitUntil("an outcome of each copy") { $0.count == 2 }
            #expect(sandbox.state.messages(provider: "fcm", token: "slow-300-twice").count == 1, "sent once")
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            #expect(outcomes.allSatisfy { $0.status == .delivered })
            #expect(outcomes.filter { $0.reason == "delivered before; not sent again" }.count == 1, "\(outcomes.map(\.reason))")
        }
        await transport.close()
        await sandbox.stop()
    }

    /// After a failover the broker hands a request's copy to a new batch while the batch
    /// sending the first is still in flight. If that send is to be retried, the copy schedules
    /// the same retry: the first batch's may be lost with its channel, and a retry that comes
    /// back twice finds the record after the first delivers.
    @Test func aCopyWaitingForAnotherBatchsSendSchedulesItsRetryToo() async throws {
        let fixture = try DispatchFixture()
        let request = FCMTestSandbox.request(token: "copy-token")
        let sends = Mutex(0)
        // Each batch reads the clock as it starts: the second read is the copy's batch.
        let clockReads = Mutex(0)
        let firstMayEnd = Completion<Bool>()
        let stage = DispatchStage.make(
            runtime: fixture.harness.runtime, platform: .fcm, routes: fixture.routes, batching: .init(prefetch: 10, batchesInFlight: 4),
            now: { clockReads.withLock { $0 += 1 }; return Date() }, record: SentRecord()
        ) { batch in
            sends.withLock { $0 += 1 }
            _ = try? await firstMayEnd.value(within: .seconds(60), "the test letting the first send end")
            return batch.map { _ in .retry(code: DispatchCode.transport, reason: "the provider is unavailable", retryAfter: .seconds(3600)) }
        }
        try await fixture.harness.run([stage], collecting: ["outcomes"]) { collectors in
            try await fixture.harness.publish(request)
            try await eventually("the first copy being sent") { sends.withLock { $0 } == 1 }
            // The copy comes in a batch of its own while the first send is in flight.
            try await fixture.harness.publish(request)
            try await eventually("the copy's batch started") { clockReads.withLock { $0 } >= 2 }
            await firstMayEnd.set(true)
            try await collectors[0].inbox.waitUntil(timeout: .seconds(30), "a retry scheduled by each copy") { messages in
                messages.filter { (try? $0.decode(Outcome.self))?.status == .retrying }.count == 2
            }
            #expect(sends.withLock { $0 } == 1, "the copy is not sent alongside, only its retry scheduled")
        }
    }

    /// A pack holds up to a hundred requests a message, so a batch can outgrow what the
    /// transport should queue: the stage hands the client slices of `sendLimit`.
    @Test func aBatchLargerThanTheSendLimitGoesToTheClientInSlices() async throws {
        let fixture = try DispatchFixture()
        let sizes = Mutex<[Int]>([])
        let stage = DispatchStage.make(
            runtime: fixture.harness.runtime, platform: .fcm, routes: fixture.routes, batching: .init(prefetch: 10, sendLimit: 30)
        ) { batch in
            sizes.withLock { $0.append(batch.count) }
            return batch.map { _ in .delivered(providerId: nil) }
        }
        let requests = (0..<200).map { FCMTestSandbox.request(token: "slice-\($0)") }
        try await fixture.harness.run([stage], collecting: ["outcomes"]) { collectors in
            let pack = MessagePack.pack(try requests.map {
                try OutgoingMessage(contract: $0, exchange: fixture.harness.work.exchange.name, routingKey: "work")
            })
            try await fixture.harness.runtime.requirePublisher.publish(contentsOf: pack)
            try await collectors[0].inbox.waitUntil("an outcome per request") { $0.count == requests.count }
        }
        let handed = sizes.withLock { $0 }
        #expect(handed.reduce(0, +) == requests.count)
        #expect(handed.allSatisfy { $0 <= 30 } && handed.contains(30), "\(handed)")
    }

    @Test func anExpiredRequestIsNotSent() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let fixture = try DispatchFixture()
        let late = FCMTestSandbox.request(token: "good-late", expiresAt: Date().addingTimeInterval(-1))
        try await fixture.harness.run([fixture.stage(sandbox.client(transport: transport))], collecting: ["outcomes"]) { collectors in
            try await fixture.harness.publish(late)
            try await collectors[0].inbox.waitUntil("the outcome") { $0.count == 1 }
            #expect(try await collectors[0].inbox.messages[0].decode(Outcome.self).status == .expired)
            #expect(sandbox.state.messages(provider: "fcm").isEmpty)
        }
        await transport.close()
        await sandbox.stop()
    }

    @Test func retriesWaitInTheBrokerGrowFromOneSecondAndSurviveARestartOfTheDispatcher() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let fixture = try DispatchFixture()
        let flaky = FCMTestSandbox.request(token: "unavailable-2-flaky")
        let client = sandbox.client(transport: transport)
        let outcomes = Collector(fixture.harness.runtime.connection("collect:outcomes"), queue: fixture.harness.queues["outcomes"]!.name)

        // The first dispatcher sends, fails, schedules the retry and is stopped.
        try await fixture.harness.run([fixture.stage(client)], collecting: [], cleanUp: false) { _ in
            try await fixture.harness.publish(flaky)
            try await outcomes.inbox.waitUntil("the first retrying outcome") { $0.count == 1 }
        }
        // A new dispatcher (a new runtime on the same queues) takes over the scheduled retries.
        let second = try fixture.harness.newRuntime()
        let stage = fixture.stage(client, runtime: second)
        let group = ServiceGroup(services: [stage], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await outcomes.inbox.waitUntil(timeout: .seconds(30), "delivery after two retries") { $0.count == 3 }
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        await second.requirePublisher.close()

        let decoded = try await outcomes.inbox.messages.map { try $0.decode(Outcome.self) }
        #expect(decoded.map(\.status) == [.retrying, .retrying, .delivered])
        // Each retrying outcome names the broker tier it waits in ("…; attempt 2 in 2s"). The
        // gaps are compared with those tiers, not with each other: the first gap also holds the
        // restart of the dispatcher, which a loaded machine can make longer than the next tier.
        let tiers = decoded.prefix(2).map { outcome in
            outcome.reason.flatMap { reason in reason.split(separator: " ").last.flatMap { Int($0.dropLast()) } } ?? 0
        }
        let firstGap = decoded[1].at.timeIntervalSince(decoded[0].at)
        let secondGap = decoded[2].at.timeIntervalSince(decoded[1].at)
        #expect(tiers[0] >= 1 && tiers[1] > tiers[0], "the tiers grow from a second (\(tiers))")
        #expect(firstGap >= Double(tiers[0]), "the first retry waits its tier (\(firstGap) s in the \(tiers[0]) s tier)")
        #expect(secondGap >= Double(tiers[1]), "the second waits its longer tier (\(secondGap) s in the \(tiers[1]) s tier)")
        #expect(sandbox.state.messages(provider: "fcm").map(\.token) == ["unavailable-2-flaky"])
        await outcomes.stop()
        await fixture.harness.cleanUp()
        await transport.close()
        await sandbox.stop()
    }
}
