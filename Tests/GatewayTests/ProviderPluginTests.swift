import DispatchKit
import Foundation
import Gateway
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import HeraldStackTestSupport
import Messaging
import Encryption
import Registration
import ServiceKit
import Testing
import StageTestSupport

/// A provider is a plug-in: the pigeon provider of this test target, added to Herald's
/// registry here and named by no production file, is served the whole way.
@Suite("A provider is a plug-in")
struct ProviderPluginTests {
    static let registry = ProviderRegistry.herald.adding([PigeonProvider(log: PigeonLog())])

    @Test func theTopologyHasTheQueuesOfEveryProviderOfTheRegistry() {
        let topology = HeraldTopology.all(Self.registry)
        let names = Set(topology.queues.map(\.name))
        #expect(names.isSuperset(of: ["dispatch.pigeon", "dispatch.sent.pigeon", "retry.pigeon.1s", "retry.pigeon.20m"]))
        #expect(topology.bindings.contains { $0.exchange == "herald.dispatch" && $0.queue == "dispatch.pigeon" && $0.routingKey == "pigeon" })
        #expect(!Set(HeraldTopology.all(.herald).queues.map(\.name)).contains("dispatch.pigeon"), "Herald's own registry has no pigeon")
    }

    @Test func theRegistryChecksEachProvidersSectionOfTheAppsFileAtStart() throws {
        let apps = try AppsConfiguration.parse("apps:\n  loftless:\n    pigeon: { loft: '' }\n")
        #expect(throws: ConfigurationError(.invalidValue, setting: "apps.loftless.pigeon.loft", "names no loft")) {
            try Self.registry.validate(apps)
        }
        let missing = try AppsConfiguration.parse("apps:\n  odd:\n    pigeon: { perch: 3 }\n")
        #expect {
            try Self.registry.validate(missing)
        } throws: {
            "\($0)".contains("apps.odd.pigeon") && "\($0)".contains("loft")
        }
        try ProviderRegistry.herald.validate(apps)
    }

    @Test func anEvernymComMethodNamingAProviderOfTheAppIsItsToken() throws {
        let apps = try AppsConfiguration.parse("apps:\n  a:\n    fcm: { serviceAccountFile: x.json }\n    apns: { teamId: T, keyId: K, keyFile: k.p8, topic: t, environment: production }\n")
        let app = apps.apps["a"]
        let apnsToken = String(repeating: "ab", count: 32)
        #expect(ProviderRegistry.herald.comMethodToken("FCM:tok-1", app: app) == DirectToken(platform: .fcm, token: "tok-1"))
        #expect(ProviderRegistry.herald.comMethodToken("APNS:\(apnsToken)", app: app) == DirectToken(platform: .apns, token: apnsToken))
        #expect(ProviderRegistry.herald.comMethodToken("HMS:tok-2", app: app) == nil, "the app has no Push Kit account")
        #expect(ProviderRegistry.herald.comMethodToken("APNS:not-hex", app: app) == nil, "not a token APNs takes")
        #expect(ProviderRegistry.herald.comMethodToken("fcm:tok-1", app: app) == nil, "the provider's name in capitals")
        #expect(ProviderRegistry.herald.comMethodToken("FCM:", app: app) == nil)
        #expect(ProviderRegistry.herald.comMethodToken("sponsee-7", app: app) == nil)
        #expect(ProviderRegistry.herald.comMethodToken("FCM:tok-1", app: nil) == nil)
    }

    @Test func aTokenWithoutAPlatformGoesToItsSystemsProviderOfTheAppElseToTheOneThatTakesUnnamedTokens() throws {
        let apps = try AppsConfiguration.parse("apps:\n  a:\n    apns: { teamId: T, keyId: K, keyFile: k.p8, topic: t, environment: production }\n  b: {}\n")
        #expect(ProviderRegistry.herald.tokenPlatform(os: .ios, app: apps.apps["a"]) == .apns)
        #expect(ProviderRegistry.herald.tokenPlatform(os: .ios, app: apps.apps["b"]) == .fcm, "no APNs account: an iOS app on Firebase")
        #expect(ProviderRegistry.herald.tokenPlatform(os: .android, app: apps.apps["a"]) == .fcm)
        let withoutFCM = ProviderRegistry(ProviderRegistry.herald.providers.filter { $0.platform != .fcm })
        #expect(withoutFCM.tokenPlatform(os: .android, app: apps.apps["a"]) == nil, "no provider takes unnamed tokens")
        let apnsToken = String(repeating: "ab", count: 32)
        #expect(ProviderRegistry.herald.otherRecognizer(of: apnsToken, than: .fcm)?.platform == .apns)
        #expect(ProviderRegistry.herald.otherRecognizer(of: "fcm-token:APA91b", than: .fcm) == nil)
    }

    @Test func aDeviceThatNamesNoSystemRunsItsProvidersOrAndroid() {
        #expect(ProviderRegistry.herald.deviceOS(platform: .apns) == .ios)
        #expect(ProviderRegistry.herald.deviceOS(platform: .fcm) == .android)
        #expect(Self.registry.deviceOS(platform: "pigeon") == .android)
    }

    @Test func theOpenAPIDocumentNamesTheRegistrysPlatforms() throws {
        let document = OpenAPIDocument.yaml
        let devices = ProviderRegistry.herald.devicePlatforms.map(\.rawValue).joined(separator: ", ")
        let all = ProviderRegistry.herald.eventPlatforms.map(\.rawValue).joined(separator: ", ")
        #expect(document.contains("platform: { enum: [\(devices)]"), "the device registration's platforms are \(devices)")
        #expect(document.contains("platform: { enum: [\(all)] }"), "an audience token's platforms are \(all)")
    }

    /// The gateway registers a pigeon device, Registration resolves an event to it, the
    /// encryption stage sizes its payload by the pigeon's rule (degrading one too big for a
    /// pigeon) and routes it to the pigeon's queue, and the dispatch stage hands it to the
    /// pigeon's client.
    @Test(.needs(.broker))
    func aTestOnlyProviderIsRegisteredRoutedSizedAndDispatched() async throws {
        let device: [String: Any] = ["platform": "pigeon", "token": "bird-1", "os": "other", "userId": "u1"]
        // Without the pigeon in its registry, the gateway refuses the platform.
        let plain = try await GatewayFixture()
        let refused = await plain.send("PUT", "/v1/apps/{app}/devices/p1", json: device)
        await plain.stop()
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("platform"))

        let log = PigeonLog()
        let registry = ProviderRegistry.herald.adding([PigeonProvider(log: log)])
        let gateway = try await GatewayFixture(providers: registry)
        let put = await gateway.send("PUT", "/v1/apps/{app}/devices/p1", json: device)
        #expect(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
        let small = #"{"id":"small","source":"api","kind":"note","audience":{"devices":["p1"]},"data":{"text":"hi"},"options":{"encryption":"none"}}"#
        let large = #"{"id":"big","source":"api","kind":"note","audience":{"devices":["p1"]},"data":{"text":"\#(String(repeating: "x", count: 400))"},"options":{"encryption":"none"}}"#
        #expect(await gateway.send("POST", "/v1/apps/{app}/events", body: Data(small.utf8)).status == 202)
        #expect(await gateway.send("POST", "/v1/apps/{app}/events", body: Data(large.utf8)).status == 202)
        try await gateway.waitForEvents("both events") { $0.count == 2 }
        let events = try await gateway.published()

        // Registration, encryption and the pigeon's dispatcher on private queues, bound as
        // Herald binds them: a dispatch queue per platform of the registry.
        let id = UUID().uuidString.prefix(8)
        let dispatchQueues = Dictionary(uniqueKeysWithValues: registry.platforms.map { ($0, QueueSpec("test.plugin.dispatch.\($0).\(id)")) })
        let allowed = QueueSpec("test.plugin.allowed.\(id)")
        let sent = QueueSpec("test.plugin.sent.\(id)", kind: .stream, maxAge: "1h")
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("herald-plugin-\(id).yaml")
        try Data("apps:\n  \(gateway.app):\n    pigeon: { loft: north }\n".utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let harness = try StageHarness(
            "plugin", exchanges: ["deliveries": .topic, "dispatch": .direct, "retry": .direct, "control": .topic, "outcomes": .topic],
            queues: ["outcomes": ("outcomes", "#")],
            extra: { _, exchanges in
                AMQPTopology(
                    queues: [allowed, sent] + dispatchQueues.values,
                    bindings: [BindingSpec(exchange: exchanges["deliveries"]!.name, queue: allowed.name, routingKey: HeraldTopology.RoutingKey.resolved)]
                        + dispatchQueues.map { BindingSpec(exchange: exchanges["dispatch"]!.name, queue: $1.name, routingKey: HeraldTopology.RoutingKey.dispatch($0)) })
            },
            environment: ["HERALD_CONFIG": config.path], providers: registry)
        let outcomes = harness.exchanges["outcomes"]!
        let store = try SQLiteRegistrationStore(directory: gateway.directory)
        let provider = PigeonProvider(log: log)
        let dispatcher = try provider.dispatcher(apps: harness.herald.apps, environment: [:], logger: harness.runtime.logger)
        let stages: [any Service] = [
            RegistrationStages.resolving(runtime: harness.runtime, apps: harness.herald.apps, store: store, routes: StageRoutes(input: harness.work.queue, output: harness.exchanges["deliveries"]!, outcomes: outcomes)),
            EncryptionStage.make(runtime: harness.runtime, herald: harness.herald, routes: StageRoutes(input: allowed, output: harness.exchanges["dispatch"]!, outcomes: outcomes)),
            DispatchStage.make(
                runtime: harness.runtime, platform: provider.platform,
                routes: DispatchStage.Routes(
                    platform: provider.platform, input: dispatchQueues[provider.platform]!, retry: harness.exchanges["retry"]!,
                    control: harness.exchanges["control"]!, outcomes: outcomes, sent: sent),
                batching: try provider.batching(environment: [:]), send: dispatcher.send),
        ]
        try await harness.run(stages, collecting: ["outcomes"]) { collectors in
            for event in events { try await harness.publish(event) }
            try await collectors[0].inbox.waitUntil("an outcome of each event") { $0.count == 2 }
            let outcomes = try await collectors[0].inbox.messages.map { try $0.decode(Outcome.self) }
            #expect(outcomes.allSatisfy { $0.status == .delivered && $0.reason == "north-\($0.deliveryId)" }, "\(outcomes.map { "\($0.eventId) \($0.status) \($0.reason ?? "-")" })")
        }
        // Both went by pigeon; the big one without its text, which the pigeon cannot carry
        // (FCM's 4,096 bytes would have taken it).
        let taken = Dictionary(uniqueKeysWithValues: log.taken.map { ($0.eventId, $0) })
        #expect(taken.count == 2 && taken.values.allSatisfy { $0.platform == PigeonProvider.name && $0.token == "bird-1" })
        #expect(taken["api:small"]?.data["text"] == "hi")
        let big = try #require(taken["api:big"])
        #expect(big.data["text"] == nil && provider.fits(big, now: Date()), "\(big.data)")
        await gateway.stop()
    }
}
