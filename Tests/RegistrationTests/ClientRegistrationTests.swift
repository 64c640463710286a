import Foundation
import HeraldModel
import HeraldTestSupport
import Registration
import ServiceKit
import Testing

/// A client token's registrations, on both stores: the store checks, in the registration's own
/// transaction, that the device id and the push token are the token's user's (or free), so a
/// token can neither take over another user's device nor move another user's push token to a
/// device of its own; what it may register goes through.
@Suite struct ClientRegistrationTests {
    typealias S = RegistrySamples

    static func refused(_ run: () async throws -> RegistrationReply) async -> Bool {
        do { _ = try await run(); return false } catch let error as CommandError { return error.status == 403 } catch { return false }
    }

    @Test(arguments: StoreBackend.available)
    func aClientTokenTakesOverNoOtherUsersDeviceOrToken(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        _ = try await commands.run(.registerDevice(app: "a", registration: S.device("victim-phone", user: "victim", token: "victim-token")))
        _ = try await commands.run(.changeSourceState(app: "a", change: .pushIdDevice(token: "victim-sid", os: .android, platform: .fcm, pushIds: ["victim-profile"])))
        let mallory = ClientIdentity(userId: "mallory", pushIds: ["mallory-profile"])
        func acting(_ command: RegistrationCommand) async -> Bool { await Self.refused { try await commands.run(.actingFor(identity: mallory, command: command)) } }

        #expect(await acting(.registerDevice(app: "a", registration: S.device("victim-phone", user: "mallory", token: "mallory-token"))), "another user's device id")
        #expect(await acting(.registerDevice(app: "a", registration: S.device("mallory-phone", user: "victim"))), "another user's id in the body")
        #expect(try await store.device(app: "a", deviceId: "victim-phone")?.registration.userId == "victim")
        #expect(try await store.device(app: "a", deviceId: "victim-phone")?.registration.token == "victim-token")
        #expect(try await store.device(app: "a", deviceId: "victim-sid")?.registration.pushIds == ["victim-profile"])
        #expect(try await store.device(app: "a", deviceId: "mallory-phone") == nil)

        // Its own: a new device, the same device again with a new token, its Smart ID profile.
        _ = try await commands.run(.actingFor(identity: mallory, command: .registerDevice(app: "a", registration: S.device("mallory-phone", user: "mallory"))))
        _ = try await commands.run(.actingFor(identity: mallory, command: .registerDevice(app: "a", registration: S.device("mallory-phone", user: "mallory", token: "new-token"))))
        _ = try await commands.run(.actingFor(identity: mallory, command: .changeSourceState(app: "a", change: .pushIdDevice(token: "mallory-sid", os: .android, platform: .fcm, pushIds: ["mallory-profile"]))))
        _ = try await commands.run(.actingFor(identity: mallory, command: .changeSourceState(app: "a", change: .pushIdDevice(token: "mallory-sid", os: .android, platform: .fcm, pushIds: ["mallory-profile"]))))
        #expect(try await store.device(app: "a", deviceId: "mallory-phone")?.registration.token == "new-token")

        // "Last write wins": the push token the phone holds proves it is in this user's hands
        // (user B signing in on the phone user A used), so presenting it moves the device.
        _ = try await commands.run(.actingFor(identity: mallory, command: .registerDevice(app: "a", registration: S.device("handed-over", user: "mallory", token: "victim-token"))))
        #expect(try await store.device(app: "a", deviceId: "victim-phone") == nil)
        #expect(try await store.device(app: "a", deviceId: "handed-over")?.registration.userId == "mallory")
        _ = try await commands.run(.actingFor(identity: mallory, command: .changeSourceState(app: "a", change: .pushIdDevice(token: "victim-sid", os: .android, platform: .fcm, pushIds: ["mallory-profile"]))))
        #expect(try await store.device(app: "a", deviceId: "victim-sid")?.registration.pushIds == ["mallory-profile"])
    }
}
