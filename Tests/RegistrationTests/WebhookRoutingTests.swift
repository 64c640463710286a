import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Registration
import ServiceKit
import Testing

/// Which deliveries Registration routes to the webhook dispatcher, and what a 410 from a
/// tenant's endpoint removes (real SQLite files).
@Suite struct WebhookRoutingTests {
    typealias S = RegistrySamples

    static let apps = AppsConfiguration(apps: [
        "chat": AppConfiguration(delivery: .init(mode: .webhook, url: "https://tenant.example/herald", signingSecretFile: "/secret")),
        "sponsor": AppConfiguration(delivery: .init(mode: .direct, url: "https://sponsor.example/forward", signingSecretFile: "/secret")),
    ])

    @Test(arguments: StoreBackend.available)
    func eachRecipientUserOfAWebhookModeAppGetsOneForwardListingItsDevicesIfAny(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "chat", S.device("bob-phone", user: "bob", token: "bob-fcm", key: S.deviceKey))
        try await store.register(app: "chat", S.device("bob-tablet", user: "bob", token: "bob-hms", platform: .hms))
        let resolver = AudienceResolver(store: store, apps: Self.apps)
        let recipients = try await resolver.devices(of: S.event(app: "chat", audience: .users(["bob", "carol", "bob"])))
        #expect(recipients.map(\.device.id) == ["user:bob", "user:carol"], "one each, carol with no device too")
        for recipient in recipients {
            #expect(recipient.device.platform == .webhook && recipient.device.key == nil && recipient.addressKey == nil)
        }
        let bob = try #require(recipients.first?.device.recipient)
        #expect(bob.userId == "bob" && bob.deviceId == nil)
        #expect(Set(bob.devices ?? []) == [.init(deviceId: "bob-phone", platform: .fcm, token: "bob-fcm"), .init(deviceId: "bob-tablet", platform: .hms, token: "bob-hms")])
        #expect(recipients.last?.device.recipient == WebhookRecipient(userId: "carol", devices: []))
        // The same event again: the same delivery ids, so a repeat is the same forward.
        let again = try await resolver.devices(of: S.event(app: "chat", audience: .users(["carol", "bob"])))
        #expect(Set(again.map(\.device.id)) == ["user:bob", "user:carol"])
    }

    @Test(arguments: StoreBackend.available)
    func aWebhookModeAppsDeviceAudienceIsForwardedToTheDevicesUsers(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "chat", S.device("bob-phone", user: "bob", token: "bob-fcm"))
        try await store.register(app: "chat", S.device("kiosk", user: nil, token: "kiosk-fcm"))
        let recipients = try await AudienceResolver(store: store, apps: Self.apps).devices(of: S.event(app: "chat", audience: .devices(["bob-phone", "kiosk"])))
        #expect(recipients.map(\.device.id) == ["user:bob", "kiosk"])
        #expect(recipients.last?.device.recipient == WebhookRecipient(deviceId: "kiosk", platform: .fcm, token: "kiosk-fcm"))
    }

    @Test(arguments: StoreBackend.available)
    func typeThreeAndTypeFourSponseesAreBothPushedToTheirComMethods(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.setSponsee(app: "sponsor", Sponsee(sponseeId: "s3", type: 3, value: "FCM:s3-token"))
        try await store.setSponsee(app: "sponsor", Sponsee(sponseeId: "s4", type: 4, value: "FCM:s4-token"))
        try await store.setSponsee(app: "sponsor", Sponsee(sponseeId: "s5", type: 3, value: #"{"device":"opaque to Herald"}"#))
        let recipients = try await AudienceResolver(store: store, apps: Self.apps).devices(of: S.event(app: "sponsor", audience: .users(["s3", "s4", "s5"])))
        for (id, token) in [("sponsee:s3", "s3-token"), ("sponsee:s4", "s4-token")] {
            let pushed = try #require(recipients.first { $0.device.id == id }?.device)
            #expect(pushed.platform == .fcm && pushed.token == token && pushed.recipient == nil && pushed.os == .other, "\(pushed)")
        }
        #expect(!recipients.contains { $0.device.id == "sponsee:s5" }, "a value Herald cannot push to reaches nobody in an app that pushes itself")
    }

    /// In webhook mode the tenant's server gets a sponsee's com method, opaque or not.
    @Test(arguments: StoreBackend.available)
    func aWebhookModeAppsSponseesAreForwardedWithTheirComMethods(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.setSponsee(app: "chat", Sponsee(sponseeId: "s3", type: 3, value: #"{"device":"opaque to Herald"}"#))
        try await store.setSponsee(app: "chat", Sponsee(sponseeId: "s4", type: 4, value: "FCM:s4-token"))
        let recipients = try await AudienceResolver(store: store, apps: Self.apps).devices(of: S.event(app: "chat", audience: .users(["s3", "s4"])))
        let opaque = try #require(recipients.first { $0.device.id == "sponsee:s3" }?.device)
        #expect(opaque.platform == .webhook && opaque.recipient == WebhookRecipient(sponseeId: "s3", sponseeDetails: #"{"device":"opaque to Herald"}"#))
        let token = try #require(recipients.first { $0.device.id == "sponsee:s4" }?.device)
        #expect(token.platform == .webhook && token.recipient?.token == "s4-token" && token.recipient?.sponseeId == "s4", "\(token)")
    }

    @Test(arguments: StoreBackend.available)
    func aDirectModeAppsDevicesArePushed(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "sponsor", S.device("d1", user: "u1", token: "t1"))
        let recipients = try await AudienceResolver(store: store, apps: Self.apps).devices(of: S.event(app: "sponsor", audience: .users(["u1"])))
        #expect(recipients.map(\.device.platform) == [.fcm])
    }

    @Test(arguments: StoreBackend.available)
    func aGoneEndpointRemovesTheSponseeUntilItRegistersAgain(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.setSponsee(app: "sponsor", Sponsee(sponseeId: "s3", type: 3, value: "details"), now: Date(timeIntervalSince1970: 1000))
        let gone = TokenRevoked(app: "sponsor", platform: .webhook, token: "", reason: "HTTP_410", deviceId: "sponsee:s3", failedSendAt: Date(timeIntervalSince1970: 2000))
        #expect(try await store.revoke(gone) == .removed(deviceId: "sponsee:s3"))
        #expect(try await store.sponsees(app: "sponsor", ids: ["s3"]).isEmpty)
        // Registered again after a later failed send: kept.
        try await store.setSponsee(app: "sponsor", Sponsee(sponseeId: "s3", type: 3, value: "details"), now: Date(timeIntervalSince1970: 3000))
        #expect(try await store.revoke(gone) == .renewed(deviceId: "sponsee:s3"))
        #expect(try await store.sponsees(app: "sponsor", ids: ["s3"]).count == 1)
    }

    @Test(arguments: StoreBackend.available)
    func aGoneEndpointRemovesTheDeviceOfAWebhookModeApp(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await store.register(app: "chat", S.device("bob-phone", user: "bob", token: "bob-fcm"), now: Date(timeIntervalSince1970: 1000))
        let gone = TokenRevoked(app: "chat", platform: .webhook, token: "", reason: "HTTP_410", deviceId: "bob-phone", failedSendAt: Date(timeIntervalSince1970: 2000))
        #expect(try await store.revoke(gone) == .removed(deviceId: "bob-phone", userId: "bob"))
        #expect(try await store.device(app: "chat", deviceId: "bob-phone") == nil)
        #expect(try await store.revoke(gone) == .unknown)
        // A user's forward answered 410: the user is the tenant's, nothing is removed.
        try await store.register(app: "chat", S.device("bob-phone", user: "bob", token: "bob-fcm"), now: Date(timeIntervalSince1970: 1000))
        let userGone = TokenRevoked(app: "chat", platform: .webhook, token: "", reason: "HTTP_410", deviceId: "user:bob", failedSendAt: Date(timeIntervalSince1970: 2000))
        #expect(try await store.revoke(userGone) == .unknown)
        #expect(try await store.device(app: "chat", deviceId: "bob-phone") != nil)
    }
}
