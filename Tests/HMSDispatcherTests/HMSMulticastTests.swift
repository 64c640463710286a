import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HMSSender
import Logging
import ServiceKit
import Testing

/// Multicast against the sandbox: identical plain deliveries share requests of up to 1,000
/// tokens; encrypted ones go one per request; each delivery gets its own result.
@Suite("Push Kit multicast")
struct HMSMulticastTests {
    @Test func identicalPlainDeliveriesBecomeOneRequestPerThousandTokens() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = HMSDispatcher(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
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

    @Test func encryptedDeliveriesGoOnePerRequestAndDoNotWaitForTheWindow() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = HMSDispatcher(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        // A window that never closes on time: only sends that do not join it can finish.
        let window = SendWindow(window: .seconds(3600), limit: HMSClient.maxTokens, joins: HMSMulticast.joins, send: dispatcher.send)
        let count = 40
        let results = await TestSandbox.sendConcurrently((0..<count).map { index in TestSandbox.hmsRequest(token: "e-\(index)", event: "same-event", encrypted: true) }, through: window)
        #expect(results.count == count && results.allSatisfy { if case .delivered = $0 { true } else { false } })
        #expect(sandbox.state.sendRequests(provider: "hms").map(\.tokens.count) == Array(repeating: 1, count: count))
        await transport.close()
        await sandbox.stop()
    }

    @Test func theWindowGathersConcurrentSendsIntoFullRequests() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = HMSDispatcher(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        // A window that closes only when full, so the count of requests is exact.
        let window = SendWindow(window: .seconds(3600), limit: HMSClient.maxTokens, joins: HMSMulticast.joins, send: dispatcher.send)
        let count = 3000
        let results = await TestSandbox.sendConcurrently((0..<count).map { index in TestSandbox.hmsRequest(token: "w-\(index)", event: "same-event") }, through: window)
        #expect(results.count == count && results.allSatisfy { if case .delivered = $0 { true } else { false } })
        #expect(sandbox.state.sendRequests(provider: "hms").map(\.tokens.count) == [1000, 1000, 1000])
        await transport.close()
        await sandbox.stop()
    }

    @Test func aWindowThatIsNotFullClosesAfterItsDurationWithOneRequest() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let dispatcher = HMSDispatcher(platform: .hms, clients: ["demo": sandbox.hmsClient(transport: transport)])
        // Long enough that seven sends surely arrive within it, even on a loaded machine.
        let window = SendWindow(window: .seconds(2), limit: HMSClient.maxTokens, joins: HMSMulticast.joins, send: dispatcher.send)
        let results = await TestSandbox.sendConcurrently((0..<7).map { index in TestSandbox.hmsRequest(token: "few-\(index)", event: "same-event") }, through: window)
        #expect(results.allSatisfy { if case .delivered = $0 { true } else { false } })
        #expect(sandbox.state.sendRequests(provider: "hms").map(\.tokens.count) == [7])
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
        _ = await sandbox.hmsClient(transport: transport).send([single] + pair)
        let one = try #require(sandbox.state.messages(provider: "hms", token: "shape-1").first?.message)
        let data = try #require((one["data"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
        #expect(data == single.data)
        let android = try #require(one["android"] as? [String: Any])
        #expect(android["urgency"] as? String == "HIGH" && android["collapse_key"] as? Int == 7 && android["bi_tag"] as? String == "delivery-1")
        let ttl = try #require((android["ttl"] as? String).flatMap { Int($0.dropLast()) })
        #expect((590...600).contains(ttl), "the remaining TTL: \(ttl)")
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
        let demo = sandbox.running.sandbox.demoHMSClient!
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
        let dispatcher = try HMSDispatcher(hmsApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        var elsewhere = TestSandbox.hmsRequest(token: "to-other")
        elsewhere.app = "other"
        let results = await dispatcher.send([TestSandbox.hmsRequest(token: "to-demo"), elsewhere])
        guard case .delivered = results[0] else { Issue.record("\(results)"); return }
        #expect(results[1] == .failed(code: "NOT_CONFIGURED", reason: "app other has no hms settings"))
        for transport in dispatcher.transports { await transport.close() }
        await sandbox.stop()
    }

    @Test func anUnreadableClientSecretIsAConfigurationErrorNamingTheApp() throws {
        let yaml = "apps:\n  alpha:\n    hms: { appId: '1', clientId: '1', clientSecretFile: /nonexistent/secret }\n"
        #expect {
            _ = try HMSDispatcher(hmsApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        } throws: {
            ($0 as? ConfigurationError)?.description.contains("apps.alpha.hms.clientSecretFile") == true
        }
    }
}
