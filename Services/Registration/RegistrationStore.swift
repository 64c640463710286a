import Foundation
import HeraldModel

/// The store Registration keeps, by concern: devices (`DeviceStore`), what audiences
/// resolve to (`AudienceStore`), Evernym's sponsees (`SponseeStore`), the idempotency of
/// events (`EventClaimStore`) and delivery outcomes (`OutcomeStore`); each stage asks for
/// the parts it uses. Two implementations of the whole: SQLite (`SQLiteRegistrationStore`,
/// the default, one process per file) and PostgreSQL (`PostgresRegistrationStore`, any
/// number of replicas on one database); `RegistrationStores` opens the one configured.
///
/// Across replicas the rules hold by constraints, not by reading first: a device id is one
/// row (last registration wins, so one user per device), a token belongs to one device, and
/// an event id is claimed by one process at a time.
public protocol RegistrationStore: DeviceStore, AudienceStore, SponseeStore, EventClaimStore, OutcomeStore, EventLogStore, IngestSecretStore {
    /// Forgets processed event ids older than `window`, revocation audit rows older than
    /// `auditWindow`, and delivery outcomes and logged events older than `outcomeWindow`;
    /// returns how many of each.
    func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts
    /// What the store takes: SQLite's pages in use, PostgreSQL's tables with their indexes.
    func storedBytes() async throws -> Int
    /// When the oldest logged event was accepted; nil with none logged.
    func oldestAcceptedAt() async throws -> Date?
}

/// How many rows a prune removed, by kind.
public struct PruneCounts: Sendable, Hashable {
    public var events: Int
    public var revocations: Int
    public var outcomes: Int
    /// Logged events (`GET /events`).
    public var logged: Int
}

/// Devices and their tokens, and what became of dead ones.
public protocol DeviceStore: Sendable {
    /// Registers or updates a device. A token registered under another device id of the app
    /// moves here (that device is removed); the push-id list is replaced. With `identity` (a
    /// client token's), in the same transaction: a device already registered under this id,
    /// or holding this token, must be the identity's (`ClientIdentity.owns`), else nothing
    /// changes and a 403 `CommandError` is thrown.
    func register(app: String, _ registration: DeviceRegistration, actingFor identity: ClientIdentity?, now: Date) async throws -> DeviceRecord
    func device(app: String, deviceId: String) async throws -> DeviceRecord?
    /// Removes a device; with `userId`, only if the device belongs to that user; with `token`,
    /// only if the device holds that push token (compared in constant time).
    func unregister(app: String, deviceId: String, userId: String?, token: String?) async throws -> Unregistration
    /// Removes the device holding a dead token, unless it was registered again after the
    /// failed send, and keeps an audit row either way. A webhook revocation names the
    /// registration by its id instead: a device of an app in webhook mode, or a sponsee
    /// (`sponsee:<id>`), whose com method is removed.
    func revoke(_ revocation: TokenRevoked, now: Date) async throws -> RevocationResult
    /// Revocation audit rows for a token (newest first).
    func revocations(app: String, token: String) async throws -> [RevocationRecord]
    /// A page of the app's devices, most recently registered first, each with its latest
    /// outcome.
    func devices(app: String, _ query: DeviceQuery) async throws -> DevicePage
}

/// What an event's audience resolves to: users' and push ids' devices, sponsees, and the
/// keys of email addresses.
public protocol AudienceStore: Sendable {
    /// Everything a batch of events' audiences need, in as few queries as the store can.
    func lookUp(_ lookup: AudienceLookup) async throws -> AudienceDirectory
    /// Stores an email address's key: with `deviceId`, that device's own (one key per address
    /// and device); else the address's, for the owner's devices without one.
    func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String?, now: Date) async throws -> AddressKey
}

/// Evernym's sponsees and their com methods.
public protocol SponseeStore: Sendable {
    func setSponsee(app: String, _ sponsee: Sponsee, now: Date) async throws -> Sponsee
}

/// The idempotency of events: of two copies of an event only one fans out.
public protocol EventClaimStore: Sendable {
    /// Claims a batch of events so that of two copies of an event only one fans out, even
    /// when both are handled at once, by this process or another. Finish each claimed event
    /// with `markProcessed(_:at:)` or `release(_:)`.
    func claim(_ events: [EventKey], now: Date) async throws -> [EventClaim]
    /// Marks claimed events processed and ends their claims.
    func markProcessed(_ events: [EventKey], at now: Date) async throws
    /// Ends claims without marking the events processed (their outputs were not confirmed):
    /// the next copy of each is claimed again.
    func release(_ events: [EventKey]) async
    /// Whether the event's deliveries were published (a claim in progress does not count).
    func isProcessed(app: String, eventId: String) async throws -> Bool
}

/// What became of each delivery.
public protocol OutcomeStore: Sendable {
    /// Records outcomes, keeping per delivery the latest (by its time; a late `retrying`
    /// never hides the `delivered` that followed it) and counting how many arrived; counts
    /// the logged events they belong to again and returns those this batch completed (each
    /// once: the batch that gives an event its last final outcome).
    @discardableResult
    func record(_ outcomes: [Outcome]) async throws -> [CompletedEvent]
    /// What became of an event; nil when nothing is known of it.
    func eventStatus(app: String, eventId: String) async throws -> EventStatus?
    /// The device's latest `limit` outcomes, most recent first.
    func recentOutcomes(app: String, deviceId: String, limit: Int) async throws -> [DeviceOutcome]
}

/// The log of the events Registration fanned out, with their outcomes' counts: what
/// `GET /events` lists and `GET /stats` counts. Kept as long as outcomes.
public protocol EventLogStore: Sendable {
    /// Logs events before their deliveries are published (so no outcome can come first),
    /// with how many outcomes each awaits; an event fanned out again keeps its counts.
    func logEvents(_ events: [LoggedEvent]) async throws
    /// A page of the app's logged events, most recent first.
    func events(app: String, _ query: EventQuery) async throws -> EventPage
    /// The app's events accepted and outcomes per minute and provider in `since..<until`.
    func stats(app: String, since: Date, until: Date) async throws -> DeliveryStats
}

extension DeviceStore {
    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration) async throws -> DeviceRecord {
        try await register(app: app, registration, actingFor: nil, now: Date())
    }

    @discardableResult
    public func register(app: String, _ registration: DeviceRegistration, now: Date) async throws -> DeviceRecord {
        try await register(app: app, registration, actingFor: nil, now: now)
    }

    /// Throws 403 unless every device of `rows` (one row per device and push id: what a
    /// registration would replace or move its token off) is `identity`'s: a client token
    /// takes over no other user's device or token.
    /// Refuses (403) a client token's registration that would take over another user's device
    /// by its id alone. A row holding the push token registered (`token`) is the caller's to
    /// take: possession of the token proves the phone is in the caller's hands, and "last write
    /// wins" (user B signing in on the phone user A used moves the device to B).
    static func refuseTakeover(of rows: [(deviceId: String, userId: String?, pushId: String?, token: String)], registering token: String, by identity: ClientIdentity) throws {
        var held: [String: DeviceRegistration] = [:]
        for row in rows where !Self.sameToken(row.token, token) {
            var device = held[row.deviceId] ?? DeviceRegistration(deviceId: row.deviceId, platform: .fcm, token: "", os: .other, userId: row.userId)
            if let pushId = row.pushId { device.pushIds.append(pushId) }
            held[row.deviceId] = device
        }
        guard held.values.allSatisfy(identity.owns) else {
            throw CommandError(
                code: "forbidden", detail: "this device id or push token is registered to another user: a client token acts only for its own user (sub)",
                status: 403)
        }
    }

    public func revoke(_ revocation: TokenRevoked) async throws -> RevocationResult { try await revoke(revocation, now: Date()) }

    /// Removes a device; with `userId`, only if the device belongs to that user.
    public func unregister(app: String, deviceId: String, userId: String?) async throws -> Unregistration {
        try await unregister(app: app, deviceId: deviceId, userId: userId, token: nil)
    }

    /// Whether two push tokens are the same, in time that depends on their lengths only.
    static func sameToken(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// What `unregister` answers for a device that is not removed because of `userId` or `token`,
    /// or nil when it may be removed.
    static func keep(deviceId: String, owner: String?, held: String, userId: String?, token: String?) -> Unregistration? {
        if let token, !sameToken(held, token) {
            return Unregistration(result: .noDevice, detail: "no device \(deviceId) with this push token")
        }
        if let userId, owner != userId {
            return Unregistration(
                result: .anotherUsers,
                detail: "device \(deviceId) belongs to \(owner == nil ? "no user" : "another user"), not \(userId): nothing changed")
        }
        return nil
    }
}

extension SponseeStore {
    @discardableResult
    public func setSponsee(app: String, _ sponsee: Sponsee) async throws -> Sponsee {
        try await setSponsee(app: app, sponsee, now: Date())
    }
}

extension EventClaimStore {
    public func claim(_ events: [EventKey]) async throws -> [EventClaim] { try await claim(events, now: Date()) }

    public func markProcessed(_ events: [EventKey]) async throws { try await markProcessed(events, at: Date()) }

    public func markProcessed(app: String, eventId: String, at now: Date = Date()) async throws {
        try await markProcessed([EventKey(app: app, eventId: eventId)], at: now)
    }
}

extension RegistrationStore {
    @discardableResult
    public func prune(now: Date = Date(), window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval = 7 * 24 * 3600) async throws -> PruneCounts {
        try await prune(now: now, window: window, auditWindow: auditWindow, outcomeWindow: outcomeWindow)
    }
}

extension AudienceStore {
    @discardableResult
    public func setAddressKey(app: String, emailAddressId: String, keyId: String, publicKeyDER: String, ownerUserId: String?, deviceId: String? = nil) async throws -> AddressKey {
        try await setAddressKey(app: app, emailAddressId: emailAddressId, keyId: keyId, publicKeyDER: publicKeyDER, ownerUserId: ownerUserId, deviceId: deviceId, now: Date())
    }

    /// The delivery targets of the users' devices.
    public func targets(app: String, users: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.users[app] = Set(users)
        let directory = try await lookUp(lookup)
        return users.flatMap { directory.devices(app: app, user: $0) }
    }

    /// The delivery targets of the devices with these ids.
    public func targets(app: String, ids: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.deviceIds[app] = Set(ids)
        let directory = try await lookUp(lookup)
        return ids.compactMap { directory.device(app: app, id: $0) }
    }

    /// The delivery targets of the devices listening to any of `pushIds`.
    public func targets(app: String, pushIds: [String]) async throws -> [DeviceTarget] {
        var lookup = AudienceLookup()
        lookup.pushIds[app] = Set(pushIds)
        let directory = try await lookUp(lookup)
        var seen = Set<String>()
        return pushIds.flatMap { directory.devices(app: app, pushId: $0) }.filter { seen.insert($0.id).inserted }
    }

    public func sponsees(app: String, ids: [String]) async throws -> [Sponsee] {
        var lookup = AudienceLookup()
        lookup.users[app] = Set(ids)
        let directory = try await lookUp(lookup)
        return ids.compactMap { directory.sponsee(app: app, id: $0) }
    }

    /// The key of an address and the user who owns it.
    public func addressKey(app: String, emailAddressId: String) async throws -> RegisteredAddressKey? {
        var lookup = AudienceLookup()
        lookup.addresses[app] = [emailAddressId]
        return try await lookUp(lookup).addressKey(app: app, emailAddressId: emailAddressId)
    }
}
