import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HMS
import Logging
import Messaging
import ServiceKit
import Testing
import HMSEmulation
import StageTestSupport

/// Multicast against the sandbox: identical plain deliveries share requests of up to 1,000
/// tokens; encrypted ones go one per request; each delivery gets its own result.
@Suite("Push Kit multicast")
struct HMSMulticastTests {
    @Test func identicalPlainDeliveriesBecomeOneRequestPerThousandTokens() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = ProviderDispatcher<HMSClient>(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        let count = 2500
        let batch = (0..<count).map { TestSandbox.hmsRequest(token: "m-\($0)", event: "same-event") }
        let results = await dispatcher.send(batch)
        #expect(results.count == count && results.allSatisfy { if case .delivered = $0 { true } else { false } })
        let requests = sandbox.state.sendRequests(provider: "hms")
        #expect(requests.map(\.tokens.count).sorted() == [500, 1000, 1000], "⌈2500/1000⌉ requests")
        #expect(Set(requests.flatMap(\.tokens)) == Set(batch.map(\.token)))
        await transport.close()
        await sandbox.stop()
    }

    @Test func encryptedDeliveriesOfABatchGoOnePerRequest() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = ProviderDispatcher<HMSClient>(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        let count = 40
        let results = await dispatcher.send((0..<count).map { index in TestSandbox.hmsRequest(token: "e-\(index)", event: "same-event", encrypted: true) })
        #expect(results.count == count && results.allSatisfy { if case .delivered = $0 { true } else { false } })
        #expect(sandbox.state.sendRequests(provider: "hms").map(\.tokens.count) == Array(repeating: 1, count: count))
        await transport.close()
        await sandbox.stop()
    }

    /// The dispatch stage hands the provider what its batch holds, with no window timer:
    /// a pack of plain deliveries of one event becomes requests of many tokens, and each
    /// delivery still gets its own outcome.
    @Test(.needs(.broker))
    func theStageSendsAPackOfOneEventAsMulticastRequests() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = ProviderDispatcher<HMSClient>(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        let harness = try StageHarness("hms", exchanges: ["retry": .direct, "control": .topic, "outcomes": .topic], queues: ["outcomes": ("outcomes", "#")], providers: .herald)
        let routes = DispatchStage.Routes(
            platform: .hms, input: harness.work.queue, retry: harness.exchanges["retry"]!, control: harness.exchanges["control"]!,
            outcomes: harness.exchanges["outcomes"]!, sent: QueueSpec("test.hms.sent.\(UUID().uuidString.prefix(8))", kind: .stream, maxAge: "1h"))
        let stage = DispatchStage.make(runtime: harness.runtime, platform: .hms, routes: routes, batching: .init(prefetch: 1000), send: dispatcher.send)
        let count = 600
        let requests = (0..<count).map { TestSandbox.hmsRequest(token: "p-\($0)", event: "pack-event") }
        try await harness.run([stage], collecting: ["outcomes"]) { collectors in
            // As the encryption stage publishes a fan-out: packs of 100.
            for start in stride(from: 0, to: count, by: 100) {
                let pack = MessagePack.pack(try requests[start..<start + 100].map {
                    try OutgoingMessage(contract: $0, exchange: harness.work.exchange.name, routingKey: "work")
                })
                try await harness.runtime.requirePublisher.publish(contentsOf: pack)
            }
            try await collectors[0].inbox.waitUntil("an outcome per delivery") { $0.count == count }
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            #expect(outcomes.allSatisfy { $0.status == .delivered })
            #expect(Set(outcomes.map(\.deliveryId)) == Set(requests.map(\.deliveryId)))
        }
        let sent = sandbox.state.sendRequests(provider: "hms")
        #expect(sent.map(\.tokens.count).reduce(0, +) == count)
        #expect(sent.count <= count / 100, "at least a pack's tokens a request: \(sent.map(\.tokens.count))")
        await transport.close()
        await sandbox.stop()
    }

    @Test func differentEventsOrRenderedContentAreNotMixedInOneRequest() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        var batch = (0..<4).map { TestSandbox.hmsRequest(token: "a-\($0)", event: "event-a") }
        batch += (0..<3).map { TestSandbox.hmsRequest(token: "b-\($0)", event: "event-b") }
        var other = TestSandbox.hmsRequest(token: "a-other-locale", event: "event-a")
        other.notification = .init(title: "Tere", body: "Uus kaart")
        batch.append(other)
        let results = await sandbox.hmsClient(transport: transport).send(batch)
        #expect(results.allSatisfy { if case .delivered = $0 { true } else { false } })
        #expect(Set(sandbox.state.sendRequests(provider: "hms").map { Set($0.tokens) }) == [
            Set((0..<4).map { "a-\($0)" }), Set((0..<3).map { "b-\($0)" }), ["a-other-locale"],
        ])
        await transport.close()
        await sandbox.stop()
    }

    @Test func theMessageCarriesTheDataAsJSONTextUrgencyTTLCollapseKeyAndBiTag() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        var single = TestSandbox.hmsRequest(token: "shape-1", event: "shape-event", id: "delivery-1")
        single.priority = .high
        single.collapseKey = "7"
        single.notification = .init(title: "Board", body: "A card was added")
        single.ios = .init(mutableContent: true)
        let pair = (2...3).map { TestSandbox.hmsRequest(token: "shape-\($0)", event: "shape-event-2", id: "delivery-\($0)") }
        let before = Date()
        _ = await sandbox.hmsClient(transport: transport).send([single] + pair)
        let after = Date()
        let one = try #require(sandbox.state.messages(provider: "hms", token: "shape-1").first?.message)
        let data = try #require((one["data"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
        #expect(data == single.data)
        let android = try #require(one["android"] as? [String: Any])
        #expect(android["urgency"] as? String == "HIGH" && android["collapse_key"] as? Int == 7 && android["bi_tag"] as? String == "delivery-1")
        let ttl = try #require((android["ttl"] as? String).flatMap { Int($0.dropLast()) })
        // What remained of the request's life when it was sent, in whole seconds.
        let expiresAt = try #require(single.expiresAt)
        let remaining = Int(expiresAt.timeIntervalSince(after).rounded(.down))...Int(expiresAt.timeIntervalSince(before).rounded(.up))
        #expect(remaining.contains(ttl), "the remaining TTL: \(ttl), expected \(remaining)")
        #expect((one["notification"] as? [String: Any])?["title"] as? String == "Board")
        #expect(one["apns"] == nil && one["ios"] == nil, "no iOS hints for Push Kit")
        let multicast = try #require(sandbox.state.messages(provider: "hms", token: "shape-2").first?.message)
        #expect((multicast["android"] as? [String: Any])?["bi_tag"] as? String == "shape-event-2", "a multicast is tagged with its event")
        #expect((multicast["android"] as? [String: Any])?["urgency"] as? String == "NORMAL")
        await transport.close()
        await sandbox.stop()
    }

    @Test func eachAppSendsWithItsOwnClientAndAnAppWithoutHMSIsNotConfigured() async throws {
        let sandbox = try await TestSandbox.start()
        let demo = sandbox.running.sandbox.emulator(HMSEmulator.self)!.demoClient!
        let yaml = """
            apps:
              demo:
                hms:
                  appId: "\(demo.clientId)"
                  clientId: "\(demo.clientId)"
                  clientSecretFile: \(sandbox.directory.appendingPathComponent("hms-client-secret").path)
                  endpoint: \(sandbox.endpoint)
                  tokenEndpoint: \(sandbox.endpoint)/oauth2/v3/token
                  caFile: \(sandbox.caFile)
              other: {}
            """
        let dispatcher = try ProviderDispatcher<HMSClient>(hmsApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        var elsewhere = TestSandbox.hmsRequest(token: "to-other")
        elsewhere.app = "other"
        let results = await dispatcher.send([TestSandbox.hmsRequest(token: "to-demo"), elsewhere])
        guard case .delivered = results[0] else { Issue.record("\(results)"); return }
        #expect(results[1] == .failed(code: DispatchCode.notConfigured, reason: "app other has no hms settings"))
        for transport in dispatcher.transports { await transport.close() }
        await sandbox.stop()
    }

    @Test func anUnreadableClientSecretIsAConfigurationErrorNamingTheApp() throws {
        let yaml = "apps:\n  alpha:\n    hms: { appId: '1', clientId: '1', clientSecretFile: /nonexistent/secret }\n"
        #expect {
            _ = try ProviderDispatcher<HMSClient>(hmsApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        } throws: {
            ($0 as? ConfigurationError)?.description.contains("apps.alpha.hms.clientSecretFile") == true
        }
    }
}
