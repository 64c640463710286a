import _CryptoExtras
import Crypto
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
@testable import Registration
import Testing

/// The registry's rules, on a real SQLite file.
struct RegistrationSemanticsTests {
    typealias S = RegistrySamples

    @Test(arguments: StoreBackend.available)
    func registeringIsAnUpsertWhereTheLastWriteWinsAndTheCreationTimeStays(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await store.register(app: "a", S.device("d1", token: "t1"), now: Date(timeIntervalSince1970: 1000))
        var changed = S.device("d1", token: "t2")
        changed.locale = "et-EE"
        let second = try await store.register(app: "a", changed, now: Date(timeIntervalSince1970: 2000))
        #expect(second.createdAt == first.createdAt && second.updatedAt == Date(timeIntervalSince1970: 2000))
        let stored = try #require(try await store.device(app: "a", deviceId: "d1"))
        #expect(stored.registration.token == "t2" && stored.registration.locale == "et-EE")
        #expect(stored.createdAt == Date(timeIntervalSince1970: 1000))
    }

    @Test(arguments: StoreBackend.available)
    func aDeviceRegisteredForAnotherUserMovesToThatUser(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("d1", user: "u1"))
        try await store.register(app: "a", S.device("d1", user: "u2"))
        #expect(try await store.targets(app: "a", users: ["u1"]).isEmpty)
        #expect(try await store.targets(app: "a", users: ["u2"]).map(\.id) == ["d1"])
    }

    @Test(arguments: StoreBackend.available)
    func aTokenRegisteredUnderANewDeviceIdMovesThere(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("old", token: "shared"))
        try await store.register(app: "b", S.device("other-app", token: "shared"))
        try await store.register(app: "a", S.device("new", token: "shared"))
        #expect(try await store.device(app: "a", deviceId: "old") == nil)
        #expect(try await store.device(app: "a", deviceId: "new")?.registration.token == "shared")
        #expect(try await store.device(app: "b", deviceId: "other-app") != nil, "another app's device keeps its token")
    }

    @Test(arguments: StoreBackend.available)
    func unregisteringWithAUserIdRemovesOnlyThatUsersDevice(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("d1", user: "u1"))
        let refused = try await store.unregister(app: "a", deviceId: "d1", userId: "u2")
        #expect(!refused.removed && refused.detail.contains("nothing changed"))
        #expect(try await store.device(app: "a", deviceId: "d1") != nil)
        let accepted = try await store.unregister(app: "a", deviceId: "d1", userId: "u1")
        #expect(accepted.removed)
        #expect(try await store.device(app: "a", deviceId: "d1") == nil)
    }

    @Test(arguments: StoreBackend.available)
    func unregisteringWithoutAUserIdRemovesTheDevice(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("d1", user: "u1"))
        #expect(try await store.unregister(app: "a", deviceId: "d1", userId: nil).removed)
        #expect(try await store.unregister(app: "a", deviceId: "d1", userId: nil).detail == "no device d1")
    }

    @Test(arguments: StoreBackend.available)
    func aSmartIDDeviceRegistersItsFullListOfProfileIdsReplacingTheOldOne(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        _ = try await commands.run(.changeSourceState(app: "sid", change: .pushIdDevice(token: "fcm-token-1", os: .ios, platform: .fcm, pushIds: ["p1", "p2"])))
        _ = try await commands.run(.changeSourceState(app: "sid", change: .pushIdDevice(token: "fcm-token-1", os: .ios, platform: .fcm, pushIds: ["p2", "p3"])))
        #expect(try await store.targets(app: "sid", pushIds: ["p1"]).isEmpty)
        #expect(try await store.targets(app: "sid", pushIds: ["p3"]).map(\.id) == ["fcm-token-1"])
        #expect(try await store.device(app: "sid", deviceId: "fcm-token-1")?.registration.pushIds == ["p2", "p3"])
    }

    /// "FCM:" followed by a combining mark is one character less to `String`: the com method
    /// is read by its bytes, as its sender wrote it (found by Schemathesis).
    @Test(arguments: StoreBackend.available)
    func aType4ComMethodIsReadByItsBytes(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        let value = "FCM:\u{1F3FB}token"
        let reply = try await commands.run(.changeSourceState(app: "a", change: .sponsee(sponseeId: "s1", type: 4, value: value)))
        #expect(reply.sponsee?.value == value)
        let target = AudienceResolver.target(Sponsee(sponseeId: "s1", type: 4, value: value), forwardsAll: false)
        #expect(target?.platform == .fcm && target?.token == "\u{1F3FB}token", "\(String(describing: target))")
    }

    @Test(arguments: StoreBackend.available)
    func keysAreValidatedOnRegistrationWithTheFieldNamed(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        var wrongCurve = S.device("d1")
        wrongCurve.key = DeviceKey(keyId: "k", p256dh: Base64URL.encode(P384.KeyAgreement.PrivateKey().publicKey.x963Representation), auth: S.deviceKey.auth)
        await #expect { _ = try await commands.run(.registerDevice(app: "a", registration: wrongCurve)) } throws: {
            let error = $0 as? CommandError
            return error?.code == "invalid-key" && error?.status == 422 && error?.detail.contains("key.p256dh") == true && error?.detail.contains("P-384") == true
        }
        var shortAuth = S.device("d1", key: S.deviceKey)
        shortAuth.key?.auth = Base64URL.encode(Data(count: 8))
        await #expect { _ = try await commands.run(.registerDevice(app: "a", registration: shortAuth)) } throws: {
            ($0 as? CommandError)?.detail.contains("key.auth") == true
        }
        let small = try _RSA.Encryption.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.pemRepresentation
        await #expect { _ = try await commands.run(.changeSourceState(app: "a", change: .addressKey(emailAddressId: "e1", keyId: "k", publicKey: small, ownerUserId: "u1", deviceId: nil))) } throws: {
            ($0 as? CommandError)?.code == "invalid-key" && ($0 as? CommandError)?.detail.contains("1024") == true
        }
        let good = try _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey
        let stored = try await commands.run(.changeSourceState(app: "a", change: .addressKey(emailAddressId: "e1", keyId: "k", publicKey: good.pemRepresentation, ownerUserId: "u1", deviceId: nil))).addressKey
        #expect(stored?.publicKey == good.derRepresentation.base64EncodedString())
        #expect(try await store.device(app: "a", deviceId: "d1") == nil, "nothing was stored for a refused key")
    }

    @Test(arguments: StoreBackend.available)
    func aSponseeNeedsType3Or4AndAValue(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        await #expect(throws: CommandError.self) { _ = try await commands.run(.changeSourceState(app: "v", change: .sponsee(sponseeId: "s1", type: 5, value: "x"))) }
        await #expect(throws: CommandError.self) { _ = try await commands.run(.changeSourceState(app: "v", change: .sponsee(sponseeId: "s1", type: 4, value: ""))) }
        // Which com methods the app can be pushed to is the gateway's to check (it knows the apps file).
        for type in [3, 4] {
            #expect(try await commands.run(.changeSourceState(app: "v", change: .sponsee(sponseeId: "s1", type: type, value: "FCM:tok"))).sponsee == Sponsee(sponseeId: "s1", type: type, value: "FCM:tok"))
        }
    }

    /// Upstra: "if userId is given, the device is unregistered only if it belongs to that
    /// user. No action is taken otherwise": success, and the device stays.
    @Test(arguments: StoreBackend.available)
    func unregisteringWithAnotherUsersIdSucceedsAndKeepsTheDevice(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = RegistrationCommands(store: store)
        _ = try await commands.run(.registerDevice(app: "a", registration: S.device("d1", user: "u1")))
        let reply = try await commands.run(.unregisterDevice(app: "a", deviceId: "d1", userId: "u2"))
        #expect(reply.removed == false && reply.detail?.contains("nothing changed") == true, "\(reply)")
        #expect(try await store.device(app: "a", deviceId: "d1") != nil)
        #expect(try await commands.run(.unregisterDevice(app: "a", deviceId: "d1", userId: "u1")).removed == true)
    }

    @Test(arguments: StoreBackend.available)
    func aRevocationRemovesTheDeviceAndKeepsAnAuditRow(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("d1", token: "dead"), now: Date(timeIntervalSince1970: 1000))
        let result = try await store.revoke(TokenRevoked(app: "a", platform: .fcm, token: "dead", reason: "UNREGISTERED", failedSendAt: Date(timeIntervalSince1970: 2000)))
        #expect(result == .removed(deviceId: "d1", userId: "u1"), "the device and the user it belonged to")
        #expect(try await store.device(app: "a", deviceId: "d1") == nil)
        let audit = try await store.revocations(app: "a", token: "dead")
        #expect(audit.count == 1 && audit[0].reason == "UNREGISTERED" && audit[0].result == "removed")
    }

    @Test(arguments: StoreBackend.available)
    func aRevocationDoesNotRemoveARegistrationRenewedAfterTheFailedSend(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "a", S.device("d1", token: "t"), now: Date(timeIntervalSince1970: 3000))
        let result = try await store.revoke(TokenRevoked(app: "a", platform: .fcm, token: "t", reason: "UNREGISTERED", failedSendAt: Date(timeIntervalSince1970: 2000)))
        #expect(result == .renewed(deviceId: "d1"))
        #expect(try await store.device(app: "a", deviceId: "d1") != nil)
        #expect(try await store.revocations(app: "a", token: "t").first?.result.hasPrefix("kept") == true)
    }

    @Test(arguments: StoreBackend.available)
    func pruningForgetsProcessedEventsAfterTheWindow(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let generation: TimeInterval = 86_400 / 8
        try await store.prune(now: t0, window: 86_400, auditWindow: 86_400)
        try await store.markProcessed(app: "a", eventId: "old", at: t0)
        for turn in 1...8 {
            #expect(try await store.prune(now: t0.addingTimeInterval(generation * Double(turn)), window: 86_400, auditWindow: 86_400).events == 0)
        }
        #expect(try await store.isProcessed(app: "a", eventId: "old") == true)
        try await store.markProcessed(app: "a", eventId: "new", at: t0.addingTimeInterval(90_000))
        let pruned = try await store.prune(now: t0.addingTimeInterval(generation * 9), window: 86_400, auditWindow: 86_400)
        #expect(pruned.events == 1)
        #expect(try await store.isProcessed(app: "a", eventId: "old") == false)
        #expect(try await store.isProcessed(app: "a", eventId: "new") == true)
    }
}
