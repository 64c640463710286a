import Foundation
import HeraldDomain
import HeraldModel
import HeraldStorage
import HeraldTestSupport
import StageTestSupport
import Messaging
import Preferences
import ServiceKit
import Testing

/// The store on each backend: what is written survives reopening, and concurrent changes
/// of one device are all kept.
struct PreferenceStoreTests {
    typealias S = PreferenceSamples

    @Test(arguments: StoreBackend.available)
    func everyLevelSurvivesReopeningTheStore(_ backend: StoreBackend) async throws {
        let site = try await S.site(backend)
        defer { site.remove() }
        do {
            let store = try await site.open()
            try await store.setNetwork(app: "a", enabled: false)
            try await store.setUser(app: "b", userId: "u1", UserPreferences(enabled: true, mutedKinds: ["sign", "sign", "auth"]))
            try await store.setChannel(app: "b", userId: "u1", channelId: "c1", enabled: false)
            _ = try await store.updateConfiguration(app: "b", deviceId: "d1") { $0.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false) }
        }
        if backend == .sqlite {
            #expect(FileManager.default.fileExists(atPath: site.directory.appendingPathComponent(SQLitePreferenceStorage.fileName).path))
        }
        let reopened = try await site.open()
        #expect(reopened.network(app: "a") == false && reopened.network(app: "b") == true)
        #expect(reopened.user(app: "b", userId: "u1") == UserPreferences(enabled: true, mutedKinds: ["auth", "sign"]))
        #expect(reopened.channel(app: "b", userId: "u1", channelId: "c1") == false)
        #expect(reopened.configuration(app: "b", deviceId: "d1").entries == [.init(service: S.sudo, enabled: false, rule: S.rule(sudo: "s1"))])
        #expect(reopened.decide(S.delivery(app: "a"), critical: true) == .filter(.network))
        #expect(reopened.decide(S.delivery(app: "b", kind: "sign", context: ["channelId": "c2"]), critical: false) == .filter(.kind))
        #expect(reopened.decide(S.delivery(app: "b"), critical: false) == .filter(.channel))
    }

    @Test(arguments: StoreBackend.available)
    func concurrentChangesOfOneDeviceAreAllKept(_ backend: StoreBackend) async throws {
        let site = try await S.site(backend)
        defer { site.remove() }
        let store = try await site.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<50 {
                group.addTask { _ = try await store.updateConfiguration(app: "a", deviceId: "d1") { $0.set(service: S.sudo, rule: S.rule(sudo: "s\(n)"), enabled: false) } }
            }
            try await group.waitForAll()
        }
        #expect(store.configuration(app: "a", deviceId: "d1").entries.count == 50)
        #expect(try await site.open().configuration(app: "a", deviceId: "d1").entries.count == 50)
    }

    @Test(arguments: StoreBackend.available)
    func aStaleIfMatchIsRefusedAndChangesNothing(_ backend: StoreBackend) async throws {
        let site = try await S.site(backend)
        defer { site.remove() }
        let commands = PreferenceCommands(store: try await site.open())
        let first = NotificationConfiguration(entries: [.init(service: S.sudo, enabled: false, rule: S.rule(sudo: "s1"))])
        let read = try #require(try await commands.run(.getDeviceConfiguration(app: "a", deviceId: "d1")).configuration).entityTag
        _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: first, ifMatch: read))
        // A second client still holding the tag it read before the first wrote.
        let second = NotificationConfiguration(entries: [.init(service: S.sudo, enabled: false, rule: S.rule(address: "a1"))])
        await #expect(throws: CommandError.self) {
            try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: second, ifMatch: read))
        }
        do {
            _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: second, ifMatch: read))
        } catch let error as CommandError {
            #expect(error.status == 412 && error.code == "precondition-failed", "\(error)")
        }
        #expect(try await site.open().configuration(app: "a", deviceId: "d1") == first)
        // Its own tag, `*`, or no If-Match at all: written.
        _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: second, ifMatch: "\"x\", \(first.entityTag)"))
        #expect(try await site.open().configuration(app: "a", deviceId: "d1") == second)
        _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: first, ifMatch: "*"))
        _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: second))
        #expect(try await site.open().configuration(app: "a", deviceId: "d1") == second)
    }

    @Test(arguments: StoreBackend.available)
    func ofWritersHoldingTheSameTagOnlyOneWins(_ backend: StoreBackend) async throws {
        let site = try await S.site(backend)
        defer { site.remove() }
        let commands = PreferenceCommands(store: try await site.open())
        let tag = NotificationConfiguration().entityTag
        let written = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<20 {
                group.addTask {
                    let change = NotificationConfiguration(entries: [.init(service: S.sudo, enabled: false, rule: S.rule(sudo: "s\(n)"))])
                    do {
                        _ = try await commands.run(.setDeviceConfiguration(app: "a", deviceId: "d1", configuration: change, ifMatch: tag))
                        return true
                    } catch let error as CommandError where error.status == 412 {
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(written == 1)
        #expect(try await site.open().configuration(app: "a", deviceId: "d1").entries.count == 1)
    }

    /// Writes that reach the view out of order (a replica's refresh racing its own write)
    /// never set an older value over a newer one.
    @Test(arguments: StoreBackend.available)
    func theViewKeepsTheNewestVersionOfEachKey(_ backend: StoreBackend) async throws {
        let site = try await S.site(backend)
        defer { site.remove() }
        let store = try await site.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                group.addTask {
                    try await store.setUser(app: "a", userId: "u1", UserPreferences(enabled: n % 2 == 0, mutedKinds: ["k\(n)"]))
                    try await store.refresh(.user(app: "a", userId: "u1"))
                }
            }
            try await group.waitForAll()
        }
        #expect(store.user(app: "a", userId: "u1") == (try await site.open()).user(app: "a", userId: "u1"), "the view equals what is stored")
    }
}

/// Replicas of Preferences on one PostgreSQL database: a change through one replica reaches
/// the other's view when it refreshes the announced key, and a full reload catches up.
@Suite("Preferences across replicas", .needs(.database))
struct ReplicaPreferenceTests {
    typealias S = PreferenceSamples

    @Test func aChangeThroughOneReplicaFiltersOnTheOtherOnceAnnounced() async throws {
        let site = try await S.site(.postgres)
        let announced = Collected<PreferenceEntry.Key>()
        let first = try await site.open { await announced.append($0) }
        let second = try await site.open()
        #expect(second.decide(S.delivery(app: "b"), critical: false) == .allow)
        try await first.setChannel(app: "b", userId: "u1", channelId: "c1", enabled: false)
        let keys = await announced.items
        #expect(keys == [.channel(app: "b", userId: "u1", channelId: "c1")])
        #expect(second.decide(S.delivery(app: "b"), critical: false) == .allow, "not before the announcement arrives")
        for key in keys { try await second.refresh(key) }
        #expect(second.decide(S.delivery(app: "b"), critical: false) == .filter(.channel))
    }

    @Test func aFullReloadCatchesUpWithMissedAnnouncements() async throws {
        let site = try await S.site(.postgres)
        let first = try await site.open()
        let second = try await site.open()
        try await first.setNetwork(app: "a", enabled: false)
        _ = try await first.updateConfiguration(app: "a", deviceId: "d1") { $0.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false) }
        try await second.reload()
        #expect(second.network(app: "a") == false)
        #expect(second.configuration(app: "a", deviceId: "d1") == first.configuration(app: "a", deviceId: "d1"))
    }
}

/// What a test collects from concurrent callbacks.
actor Collected<Item: Sendable> {
    private(set) var items: [Item] = []
    func append(_ item: Item) { items.append(item) }
}

@Suite("Preference commands over RPC", .needs(.broker))
struct PreferenceCommandTests {
    typealias S = PreferenceSamples

    @Test func theGatewaysCommandsAreAnsweredWithTheResultingStateOrATypedError() async throws {
        let directory = S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try StageHarness("prefcommands", exchanges: [:], queues: [:])
        let queue = QueueSpec("test.prefcommands.\(UUID().uuidString.prefix(8))", kind: .classic, durable: false, autoDelete: true)
        try await TestBroker.admin.declare(AMQPTopology(queues: [queue]))
        let commands = PreferenceCommands(store: try await PreferenceStore(directory: directory))
        let server = CommandServer(queue: queue, runtime: harness.runtime, handler: commands.handle)
        try await harness.run([server], collecting: []) { _ in
            try await eventually("the server to be ready") { harness.runtime.readiness.isReady }
            let client = try await TestBroker.connectedRPCClient("prefcommands-client")
            func call(_ command: PreferenceCommand) async throws -> PreferenceReply {
                try await client.call(command, type: PreferenceCommand.contractName, queue: queue.name, expecting: PreferenceReply.self, timeout: TestBroker.rpcTimeout)
            }
            #expect(try await call(.setUser(app: "chat", userId: "u1", preferences: UserPreferences(enabled: false, mutedKinds: ["member.joined"]))).user
                    == UserPreferences(enabled: false, mutedKinds: ["member.joined"]))
            #expect(try await call(.getUser(app: "chat", userId: "u1")).user?.enabled == false)
            #expect(try await call(.setNetwork(app: "chat", enabled: false)).networkEnabled == false)
            #expect(try await call(.getChannel(app: "chat", userId: "u1", channelId: "c1")).channelEnabled == true)
            let configuration = try await call(.initializeService(app: "sudo", deviceId: "d1", service: S.sudo)).configuration
            #expect(configuration?.entries == [.init(service: S.sudo, enabled: true)])
            await #expect(throws: CommandError(code: "invalid-userId", detail: "userId must be 1 to 256 characters")) {
                _ = try await call(.getUser(app: "chat", userId: ""))
            }
            let reply = try await client.call(queue: queue.name, type: PreferenceCommand.contractName, body: Data(#"{"nope":{}}"#.utf8), timeout: TestBroker.rpcTimeout)
            #expect(reply.properties.type == CommandError.contractName)
            #expect(try HeraldJSON.decode(CommandError.self, from: reply.body).code == "invalid-command")
            await client.close()
        }
    }
}
